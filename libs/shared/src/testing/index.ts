export * from './env';
export * from './fakePlatform';
export * from './fakeStructure';
export * from './messages';
export * from './providers';
export * from './serviceHarness';
export * from './system';
export * from './wait';
