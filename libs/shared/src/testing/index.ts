export * from './env';
export * from './fakePlatform';
export * from './providers';
export * from './wait';
