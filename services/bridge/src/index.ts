export * from './bridge';
export * from './commandRegistration';
export * from './config';
export * from './replay';
export * from './replayLine';
export * from './service';
export * from './sessionStore';
