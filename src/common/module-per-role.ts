import type { DynamicModule, Type } from '@nestjs/common';

const built = new WeakMap<Type<unknown>, Map<boolean, DynamicModule>>();

/**
 * A feature module's dynamic module for a role (routes only where the REST API is served), built
 * once per role: Nest tells dynamic modules apart by object identity, so every importer must get
 * the same one.
 */
export function modulePerRole(type: Type<unknown>, servesApi: boolean, build: () => Omit<DynamicModule, 'module'>): DynamicModule {
  let byRole = built.get(type);
  if (!byRole) built.set(type, (byRole = new Map()));
  let module = byRole.get(servesApi);
  if (!module) {
    module = { module: type, ...build() };
    byRole.set(servesApi, module);
  }
  return module;
}
