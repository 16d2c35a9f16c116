/**
 * The installable package's main entry (`@video-render-service/composition`): the `Main`
 * component for `<Player>`, `playerPropsFor`, and the request schema. Importing it loads the
 * shipped fonts (CSS), so it is for browsers and bundlers; Node code imports `…/schema`.
 */
export { Main } from './Main';
export { playerPropsFor, type PlayerPropsFor } from './player-props';
export * from './schema';
