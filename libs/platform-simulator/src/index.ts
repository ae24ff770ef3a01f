export { DiscordError, type DiscordFieldErrors } from './errors';
export type { UnmodelledCall } from './fallback';
export { GATEWAY_PATH, type GatewayOptions, shardOf } from './gateway/server';
export {
  type AutocompleteRun,
  type CommandRun,
  INTERACTION_RESPONSE_MS,
  INTERACTION_TOKEN_MS,
} from './interactionCreate';
export * from './limits';
export * from './messages';
export type { FakePlatform, FakePlatformOptions } from './platform';
export * from './recordedDay';
export { NONCE_WINDOW_MS } from './routes/messages';
export { BOT_PERMISSIONS, type SampleGuildIds, sampleGuild } from './seed';
export { startFakePlatform } from './server';
export { FAKE_BOT_USER_ID, MESSAGE_DELETE_GROUP_MS } from './state';
export type {
  FakeChannel,
  FakeGuildState,
  InjectedError,
  RecordedCall,
  SeedGuild,
  SeedMember,
  SeedUser,
  SeedUserRef,
} from './types';
export type { UserActions, UserCall, UserFile } from './userActions';
