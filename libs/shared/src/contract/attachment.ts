import { z } from 'zod';
import type { Cap } from './caps';
import { Snowflake } from './common';
import { defineRoute, type ServiceName } from './route';

/**
 * A route answering the bytes of an archived attachment (MongoDB GridFS) by the platform's attachment id: the ticket
 * and message attachment routes. The description names what the file was attached to (`subject`), why the archive
 * is kept (`purpose`), which answers link to it (`linkedFrom`), its access rule, how long it is kept and when 404
 * `not_found` is answered; the headers and the `attachment_not_archived` answer are the same for every such route.
 */
export function archivedAttachmentRoute(route: {
  id: string;
  path: string;
  service: Exclude<ServiceName, 'gateway'>;
  cap: Cap;
  summary: string;
  subject: string;
  purpose: string;
  linkedFrom: string;
  access: string;
  kept: string;
  notFound: string;
}) {
  return defineRoute({
    id: route.id,
    method: 'get',
    path: route.path,
    service: route.service,
    auth: 'guild',
    cap: route.cap,
    inSpec: false,
    summary: route.summary,
    description:
      `The bytes of a file attached to ${route.subject}, as archived (MongoDB GridFS) when the message was captured, ` +
      `so ${route.purpose}. \`attachment\` is the platform's attachment id (${route.linkedFrom} link here once the ` +
      `file is stored). ${route.access} ${route.kept} Headers: \`Content-Type\` as the platform declared it, ` +
      '`Content-Length`, `Content-Disposition` (inline for images, video, audio and plain text, else attachment, ' +
      'with the original filename), `Cache-Control: private, max-age=3600`, `ETag` (`If-None-Match` -> 304). ' +
      `404 \`not_found\`: ${route.notFound}; 404 \`attachment_not_archived\`: not stored (\`state\` \`pending\`, or ` +
      "`link` with `reason` `too_large`, `guild_quota` or `unreachable`, and `url`, the platform's link).",
    params: z.strictObject({ guild: Snowflake, attachment: Snowflake }),
    success: {
      status: 200,
      schema: z.string().meta({ format: 'binary', description: 'The file' }),
      description: 'The file',
    },
    errors: [404],
  });
}
