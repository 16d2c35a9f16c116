import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as path from 'node:path';

export interface Settings {
  url: string;
  key: string | null;
}

interface StoredConfig {
  api_url?: string;
  api_key?: string;
}

export const DEFAULT_URL = 'http://localhost:8080';

/** `$XDG_CONFIG_HOME/vrs/config.json`, `~/.config/vrs/config.json` by default. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return path.join(base, 'vrs', 'config.json');
}

async function readStored(file: string): Promise<StoredConfig> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StoredConfig;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The service URL and key: VRS_API_URL / VRS_API_KEY first, then the config file, then defaults. */
export async function loadSettings(env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const stored = await readStored(configPath(env));
  const url = env.VRS_API_URL?.trim() || stored.api_url || DEFAULT_URL;
  const key = env.VRS_API_KEY?.trim() || stored.api_key || null;
  return { url: url.replace(/\/+$/, ''), key };
}

/** Writes the config file readable by its owner only (it holds an API key). */
export async function saveSettings(settings: { url: string; key: string }, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const file = configPath(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify({ api_url: settings.url.replace(/\/+$/, ''), api_key: settings.key }, null, 2) + '\n', { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
  return file;
}
