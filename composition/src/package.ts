/**
 * The installable package's main entry (`@video-render-service/composition`): the `Main`
 * component for `<Player>`, `playerPropsFor`, `onPreviewProblem` (what the page could not load),
 * and the request schema. Importing it registers the shipped fonts (as `FontFace`s in the package
 * build, see scripts/build-composition.mjs); Node code imports `…/schema`.
 */
export { Main } from './Main';
export { playerPropsFor, type PlayerPropsFor } from './player-props';
export { onPreviewProblem, type PreviewProblem } from './preview-problems';
export * from './schema';
