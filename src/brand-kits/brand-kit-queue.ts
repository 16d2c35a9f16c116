import { z } from 'zod';
import { defineQueue } from '../infra/queue/queue-definition';

/** Loads a brand kit's page in the browser and extracts its values. */
export const BRAND_KIT_QUEUE = defineQueue('brand-kit-extract', z.strictObject({ brand_kit_id: z.string().min(1).max(100) }));
