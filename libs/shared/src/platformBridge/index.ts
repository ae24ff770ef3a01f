export * from './bridge';
export * from './fixture';
export * from './intents';
export * from './replay';
export * from './replayLine';
