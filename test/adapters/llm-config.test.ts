import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

const KEY = 'sk-live-very-secret-value-123456';

describe('LLM configuration', () => {
  it('is absent by default: the embedded templated LLM answers', () => {
    expect(loadConfig({}).llm).toBeUndefined();
  });

  it('reads base URL, model, timeout and key', () => {
    expect(
      loadConfig({ LLM_BASE_URL: 'https://api.openai.com/v1', LLM_MODEL: 'gpt-4o-mini', LLM_API_KEY: KEY, LLM_TIMEOUT_MS: '5000' }).llm,
    ).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      timeoutMs: 5000,
      apiKey: KEY,
    });
    expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:8080/v1', LLM_MODEL: 'llama', LLM_API_KEY_FILE: '/run/secrets/llm' }).llm).toEqual({
      baseUrl: 'http://127.0.0.1:8080/v1',
      model: 'llama',
      timeoutMs: 15_000,
      apiKeyFile: '/run/secrets/llm',
    });
  });

  it.each([
    [{ LLM_BASE_URL: 'https://api.openai.com/v1' }, /LLM_MODEL: is required when LLM_BASE_URL is set/],
    [{ LLM_BASE_URL: 'ftp://x', LLM_MODEL: 'm' }, /LLM_BASE_URL: must start with http:\/\/ or https:\/\//],
    [{ LLM_BASE_URL: 'https://x/v1', LLM_MODEL: 'm', LLM_TIMEOUT_MS: '50' }, /LLM_TIMEOUT_MS/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never shows the key in a configuration error', () => {
    try {
      loadConfig({ LLM_BASE_URL: 'nope', LLM_API_KEY: KEY, LLM_MODEL: 'm' });
      expect.unreachable();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(KEY);
    }
  });
});
