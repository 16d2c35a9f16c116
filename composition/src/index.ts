// Remotion entry point for @remotion/bundler's bundle({ entryPoint }).
import { registerRoot } from 'remotion';
import { Root } from './Root';

registerRoot(Root);
