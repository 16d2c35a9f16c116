import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';

export interface SkillSummary {
  name: string;
  title: string;
  description: string;
  path: string;
}

interface Skill extends SkillSummary {
  markdown: string;
}

const GUIDES_DIR = path.join(__dirname, 'guides');

/**
 * Markdown guides for AI agents and developers, loaded once from `guides/`. Each file starts with
 * a `# Title` line and a one-paragraph summary, which become the listing's title and description.
 */
@Injectable()
export class SkillsService {
  private readonly skills: Map<string, Skill>;

  constructor() {
    this.skills = new Map(
      readdirSync(GUIDES_DIR)
        .filter((file) => file.endsWith('.md'))
        .sort()
        .map((file) => {
          const name = file.replace(/\.md$/, '');
          const markdown = readFileSync(path.join(GUIDES_DIR, file), 'utf8');
          const lines = markdown.split('\n');
          const title = (lines.find((l) => l.startsWith('# ')) ?? name).replace(/^# /, '').trim();
          const description = lines.find((l, i) => i > 0 && l.trim() && !l.startsWith('#'))?.trim() ?? '';
          return [name, { name, title, description, path: `/v1/skills/${name}`, markdown }];
        }),
    );
  }

  list(): { data: SkillSummary[] } {
    return { data: [...this.skills.values()].map(({ markdown: _markdown, ...summary }) => summary) };
  }

  /** Every guide in full, in name order (for /llms-full.txt and the MCP resources). */
  all(): { name: string; markdown: string }[] {
    return [...this.skills.values()].map(({ name, markdown }) => ({ name, markdown }));
  }

  get(name: string): string {
    const skill = this.skills.get(name);
    if (!skill) {
      throw new ApiError('not_found', `No skill named "${name}"; GET /v1/skills lists them`, {
        available: [...this.skills.keys()],
      });
    }
    return skill.markdown;
  }
}
