import type { Request } from 'express';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): unknown;
}

/**
 * The methods the router serves on a path, read from Express's own route table (the routes Nest
 * registered), so a 405's Allow header can never drift from the routes. Empty: no route has the
 * path, and the answer stays a 404.
 */
export function allowedMethods(req: Request): string[] {
  const stack = ((req.app as unknown as { router?: { stack?: RouteLayer[] } }).router?.stack ?? []) as RouteLayer[];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.match(req.path)) continue;
    for (const [method, served] of Object.entries(layer.route.methods)) {
      if (served && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  // Express answers HEAD with the GET route.
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
