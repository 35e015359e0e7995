import { z } from 'zod';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import { normalizeOrigin } from './widget-origins.js';

/**
 * A legacy bot's chat widget configuration (chat widget, `GET/PUT
 * /api/nest/bots/:botId/widget-config`): the host pages' origins allowed to start a widget
 * session, and a switch. A plain record per bot; origins are kept in their normal form.
 */
export const WIDGET_CONFIG_COLLECTION: CollectionSpec = { name: 'bots.widget-configs', indexes: [] };

/** Most origins one bot's widget may be embedded on. */
const MAX_ORIGINS = 20;

const originSchema = z
  .string()
  .max(300)
  .transform((value, ctx) => {
    const normal = normalizeOrigin(value);
    if (normal === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be an http(s) origin such as https://shop.example.com (no path)' });
      return z.NEVER;
    }
    return normal;
  });

export const widgetConfigSchema = z
  .object({
    allowedOrigins: z
      .array(originSchema)
      .max(MAX_ORIGINS)
      .describe(
        'Origins (scheme, host, port) of the pages that may embed the widget, up to 20, e.g. `https://shop.example.com`. Compared exactly after normalizing case, default port and trailing slash; no wildcards.',
      ),
    enabled: z.boolean().describe('Off: no new widget session starts, on any origin (running ones end at their expiry).'),
  })
  .partial()
  .strict();

export type WidgetConfigInput = z.infer<typeof widgetConfigSchema>;

export interface WidgetConfig {
  allowedOrigins: string[];
  enabled: boolean;
  /** ISO 8601; absent while never set. */
  updatedAt?: string;
}

interface StoredWidgetConfig {
  allowedOrigins: string[];
  enabled: boolean;
  /** Epoch ms. */
  updatedAt: number;
}

export class WidgetConfigs {
  constructor(private readonly deps: { store: StorePort; clock: ClockPort }) {}

  /** The bot's configuration; a bot never configured has no allowed origin (and is enabled, so adding one is enough). */
  async get(botId: string): Promise<WidgetConfig> {
    const doc = await this.deps.store.get<StoredWidgetConfig>(WIDGET_CONFIG_COLLECTION.name, botId);
    return view(doc?.data);
  }

  /** Sets the fields given; the others keep their values. */
  async update(botId: string, input: WidgetConfigInput): Promise<WidgetConfig> {
    const { doc } = await updateRecord<StoredWidgetConfig>(
      this.deps.store,
      { collection: WIDGET_CONFIG_COLLECTION.name, id: botId },
      (current) => ({
        data: {
          allowedOrigins: input.allowedOrigins ? [...new Set(input.allowedOrigins)] : (current?.data.allowedOrigins ?? []),
          enabled: input.enabled ?? current?.data.enabled ?? true,
          updatedAt: this.deps.clock.now(),
        },
      }),
    );
    return view(doc?.data);
  }
}

function view(data: StoredWidgetConfig | undefined): WidgetConfig {
  return {
    allowedOrigins: [...(data?.allowedOrigins ?? [])],
    enabled: data?.enabled ?? true,
    ...(data ? { updatedAt: new Date(data.updatedAt).toISOString() } : {}),
  };
}
