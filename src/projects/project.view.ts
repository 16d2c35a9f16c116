import { Project } from './project.entity';

type Json = Record<string, unknown>;

const LABEL_LENGTH = 80;

/** The element list of a project summary (spec 2.4): what is where, without every field. */
function summarizeElement(element: Json) {
  const text = typeof element.text === 'string' ? element.text : undefined;
  const name = typeof element.name === 'string' ? element.name : undefined;
  const label = name ?? text;
  return {
    type: typeof element.type === 'string' ? element.type : null,
    id: typeof element.id === 'string' ? element.id : null,
    time: typeof element.time === 'number' || typeof element.time === 'string' ? element.time : 0,
    duration: typeof element.duration === 'number' || typeof element.duration === 'string' ? element.duration : null,
    label: label === undefined ? null : label.length > LABEL_LENGTH ? `${label.slice(0, LABEL_LENGTH - 1)}…` : label,
    source: typeof element.source_url === 'string' ? element.source_url : null,
  };
}

/** Seconds the request lasts when it says so, else the end of the last element timed in seconds. */
function summaryDuration(request: Json, elements: Json[]): number | null {
  if (typeof request.duration === 'number') return request.duration;
  let end: number | null = null;
  for (const element of elements) {
    if (typeof element.time === 'number' && typeof element.duration === 'number') end = Math.max(end ?? 0, element.time + element.duration);
  }
  return end;
}

export function projectSummary(project: Project, rendersCount: number) {
  const request = project.renderRequest;
  const elements = Array.isArray(request.elements) ? (request.elements as Json[]) : [];
  return {
    width: typeof request.width === 'number' ? request.width : null,
    height: typeof request.height === 'number' ? request.height : null,
    duration: summaryDuration(request, elements),
    frame_rate: typeof request.frame_rate === 'number' ? request.frame_rate : 30,
    output_format: typeof request.output_format === 'string' ? request.output_format : 'mp4',
    element_count: elements.length,
    transition_count: Array.isArray(request.transitions) ? request.transitions.length : 0,
    renders_count: rendersCount,
    elements: elements.map(summarizeElement),
  };
}

/** The Project object of spec 2.4; `render_request` only in the full view. */
export function toProjectView(project: Project, rendersCount: number, view: 'summary' | 'full') {
  return {
    id: project.id,
    name: project.name,
    version: project.version,
    workspace_id: project.workspaceId,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
    variables: project.variables,
    summary: projectSummary(project, rendersCount),
    ...(view === 'full' ? { render_request: project.renderRequest } : {}),
  };
}

export type ProjectView = ReturnType<typeof toProjectView>;
