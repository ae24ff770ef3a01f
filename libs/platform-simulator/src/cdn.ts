import { createHmac } from 'node:crypto';
import type { APIAttachment } from 'discord-api-types/v10';
import type { Request, Response } from 'express';
import type { SimulatorClock } from './clock';

/** A file part of a multipart body. */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  data: Buffer;
}

/** How long a signed attachment URL stays valid, like Discord's `ex` (24 hours). */
const URL_TTL_MS = 24 * 3600_000;

/** A 1x1 PNG served for the CDN's image routes (avatars, emoji, stickers, icons). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

interface StoredFile {
  channel: string;
  message: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/**
 * The platform's CDN for message attachments: files uploaded with a message are kept by attachment id and served at
 * `{cdn}/attachments/{channel}/{attachment}/{filename}?ex=&is=&hm=`, signed and expiring after 24 h as Discord's are
 * (an unsigned, tampered or expired URL answers 404). Deleting the message or its channel (a thread) deletes its
 * files. Tests may make one file unreachable (`makeUnreachable`) to prove a copy outlives the platform's.
 */
export class CdnFiles {
  /** Base URL of the CDN (the simulator's origin once it listens). */
  base = 'http://127.0.0.1';
  private readonly files = new Map<string, StoredFile>();

  /**
   * `clock` gives attachment ids and the signing time (the simulator clock's, so a replayed day gets the same ids and
   * URLs); `key` signs the URLs.
   */
  constructor(
    private readonly clock: SimulatorClock,
    private readonly key: Buffer,
  ) {}

  /** Stores the files of message `message` in `channel`; the attachments objects Discord returns for them. */
  store(channel: string, message: string, files: UploadedFile[]): APIAttachment[] {
    return files.map((f) => {
      const id = this.clock.snowflake();
      this.files.set(id, { channel, message, filename: f.filename, contentType: f.contentType, data: f.data });
      const url = this.signedUrl(channel, id, f.filename);
      return {
        id,
        filename: f.filename,
        size: f.data.length,
        content_type: f.contentType,
        url,
        proxy_url: url,
      };
    });
  }

  /** Deletes the files of the messages `ids` (message deletion). */
  forgetMessages(ids: Iterable<string>): void {
    const doomed = new Set(ids);
    for (const [id, file] of this.files) if (doomed.has(file.message)) this.files.delete(id);
  }

  /** Deletes the files `ids` (attachments an edit removed). */
  forgetAttachments(ids: Iterable<string>): void {
    for (const id of ids) this.files.delete(id);
  }

  /** Deletes the files of every message of `channel` (channel or thread deletion). */
  forgetChannel(channel: string): void {
    for (const [id, file] of this.files) if (file.channel === channel) this.files.delete(id);
  }

  /** Makes the file behind attachment `url` unreachable (404), as an expired or deleted file is. */
  makeUnreachable(url: string): void {
    const id = new URL(url).pathname.split('/')[3];
    if (id) this.files.delete(id);
  }

  /** Express handler of `GET /attachments/{channel}/{attachment}/{filename}`. */
  serveAttachment = (req: Request, res: Response): void => {
    const { channel, attachment, filename } = req.params as Record<string, string>;
    const file = this.files.get(attachment!);
    const ex = Number.parseInt(String(req.query.ex ?? ''), 16);
    const valid =
      file &&
      file.channel === channel &&
      file.filename === filename &&
      Number.isFinite(ex) &&
      ex * 1000 > this.clock.ms() &&
      req.query.hm === this.signature(channel!, attachment!, filename!, String(req.query.ex), String(req.query.is));
    if (!valid) {
      res.status(404).type('text/plain').send('This content is no longer available.');
      return;
    }
    res.status(200).set({ 'content-type': file.contentType, 'content-length': String(file.data.length) });
    res.end(file.data);
  };

  private imagesServed = 0;
  private imageLimit = Number.POSITIVE_INFINITY;
  private readonly heldImages: Array<() => void> = [];

  /** Image requests answered so far. */
  servedImages(): number {
    return this.imagesServed;
  }

  /** Lets `after` more image requests through and keeps the next ones waiting until `releaseImages` (a slow CDN). */
  holdImages(after: number): void {
    this.imageLimit = this.imagesServed + after;
  }

  /** Answers every held image request and stops holding. */
  releaseImages(): void {
    this.imageLimit = Number.POSITIVE_INFINITY;
    for (const answer of this.heldImages.splice(0)) answer();
  }

  /** Express handler of the CDN's image routes: a PNG (held while `holdImages` says so). */
  serveImage = (_req: Request, res: Response): void => {
    const answer = () => {
      this.imagesServed++;
      res.status(200).set({ 'content-type': 'image/png', 'content-length': String(PNG.length) });
      res.end(PNG);
    };
    if (this.imagesServed + this.heldImages.length >= this.imageLimit) this.heldImages.push(answer);
    else answer();
  };

  private signedUrl(channel: string, id: string, filename: string): string {
    const now = this.clock.ms();
    const is = Math.floor(now / 1000).toString(16);
    const ex = Math.floor((now + URL_TTL_MS) / 1000).toString(16);
    const hm = this.signature(channel, id, filename, ex, is);
    return `${this.base}/attachments/${channel}/${id}/${encodeURIComponent(filename)}?ex=${ex}&is=${is}&hm=${hm}&`;
  }

  private signature(channel: string, id: string, filename: string, ex: string, is: string): string {
    return createHmac('sha256', this.key).update(`${channel}/${id}/${filename}:${ex}:${is}`).digest('hex');
  }
}
