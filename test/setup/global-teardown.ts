export default async function globalTeardown(): Promise<void> {
  const db = (globalThis as { __embeddedPg?: { stop(): Promise<void> } }).__embeddedPg;
  await db?.stop();
}
