import { z } from 'zod';
import { CAPS } from './values';

export { CAP_DESCRIPTIONS, CAPS, type Cap } from './values';

export const CapSchema = z.enum(CAPS, { error: () => `must be one of: ${CAPS.join(', ')}` });
