export * from './billing';
export * from './community';
export * from './logs';
export * from './moderation';
export * from './serviceEvent';
export * from './settings';
export * from './tickets';
