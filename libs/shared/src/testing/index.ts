export * from './env';
export * from './fakePlatform';
