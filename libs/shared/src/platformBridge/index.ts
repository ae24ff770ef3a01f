export * from './bridge';
export * from './intents';
export * from './replay';
export * from './replayLine';
