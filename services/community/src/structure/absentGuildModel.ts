import mongoose, { Schema } from 'mongoose';

/**
 * A guild the platform answered 404 for (unknown, or the bot is not in it), remembered until `until` so that asking
 * again (the dashboard lists every guild of a session, up to 200) costs no platform calls. Removed when the bot joins
 * the guild (GUILD_CREATE); MongoDB's TTL monitor deletes expired ones (readers also ignore them).
 */
export interface AbsentGuildRow {
  _id: string;
  until: Date;
}

const schema = new Schema<AbsentGuildRow>(
  { _id: { type: String, required: true }, until: { type: Date, required: true } },
  { versionKey: false, collection: 'absent_guilds' },
);
schema.index({ until: 1 }, { expireAfterSeconds: 0 });

export const AbsentGuildModel =
  (mongoose.models.AbsentGuild as mongoose.Model<AbsentGuildRow>) ??
  mongoose.model<AbsentGuildRow>('AbsentGuild', schema);
