export * from './browser';
export * from './clock';
export * from './env';
export * from './fakeStructure';
export * from './providers';
export * from './serviceHarness';
export * from './system';
export * from './wait';
