export * from './config';
export * from './links';
export * from './model';
export * from './queue';
export * from './serve';
export * from './sweep';
export * from './worker';
