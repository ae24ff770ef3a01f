export { DiscordError, type DiscordFieldErrors } from './errors';
export { BOT_PERMISSIONS, type SampleGuildIds, sampleGuild } from './seed';
export { startFakePlatform } from './server';
export { snowflake, snowflakeDate } from './snowflake';
export { FAKE_BOT_USER_ID } from './state';
export type {
  FakeChannel,
  FakeGuildState,
  FakePlatform,
  FakePlatformOptions,
  InjectedError,
  RecordedCall,
  SeedGuild,
  SeedMember,
  SeedUser,
  SeedUserRef,
} from './types';
