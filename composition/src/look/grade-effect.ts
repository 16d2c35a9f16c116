import { createEffect } from 'remotion';
import type { GradeSettings } from './colour';
import type { CubeLut } from './lut';

/**
 * The colour grade of colour.ts (and the LUT of lut.ts) as one WebGL2 pass, run by Remotion's
 * effect chain on the frame of a `<Video>` (at the source's own size, every frame, before the
 * frame is captured) or on a `<CanvasImage>`. Software WebGL (SwiftShader) in the render worker,
 * the GPU in a browser Player.
 */
export interface GradeParams {
  settings: GradeSettings;
  lut: CubeLut | null;
  /** Identifies `lut` (its URL) for caching the uploaded texture. */
  lutKey: string;
  /** Seeds the noise: changes every frame when noise is on. */
  seed: number;
}

const VERTEX = `#version 300 es
in vec2 a_position;
out vec2 v_uv;
void main() {
  v_uv = (a_position + 1.0) * 0.5;
  gl_Position = vec4(a_position, 0.0, 1.0);
}`;

const FRAGMENT = `#version 300 es
precision highp float;
precision highp sampler3D;
uniform sampler2D u_source;
uniform sampler3D u_lut3d;
uniform sampler2D u_lut1d;
uniform int u_lutKind;
uniform float u_lutSize;
uniform vec3 u_domainMin;
uniform vec3 u_domainMax;
uniform float u_lutIntensity;
uniform vec2 u_texel;
uniform float u_exposure, u_temperature, u_tint, u_brightness, u_contrast, u_highlights, u_shadows;
uniform float u_saturation, u_vibrance, u_hue, u_sharpness, u_noise, u_vignette;
uniform vec4 u_overlay;
uniform uint u_seed;
in vec2 v_uv;
out vec4 outColor;

const vec3 LUMA = vec3(0.2126, 0.7152, 0.0722);

vec3 toLinear(vec3 c) { return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c)); }
vec3 toSrgb(vec3 c) { return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c)); }

vec3 rotateHue(vec3 c, float degrees) {
  float maxC = max(c.r, max(c.g, c.b));
  float minC = min(c.r, min(c.g, c.b));
  float delta = maxC - minC;
  if (delta <= 0.0) return c;
  float hue;
  if (maxC == c.r) hue = mod((c.g - c.b) / delta, 6.0);
  else if (maxC == c.g) hue = (c.b - c.r) / delta + 2.0;
  else hue = (c.r - c.g) / delta + 4.0;
  hue = mod(hue * 60.0 + degrees, 360.0);
  float chroma = delta;
  float x = chroma * (1.0 - abs(mod(hue / 60.0, 2.0) - 1.0));
  float m = maxC - chroma;
  int sector = int(floor(hue / 60.0)) % 6;
  vec3 rgb = sector == 0 ? vec3(chroma, x, 0.0) : sector == 1 ? vec3(x, chroma, 0.0) : sector == 2 ? vec3(0.0, chroma, x)
    : sector == 3 ? vec3(0.0, x, chroma) : sector == 4 ? vec3(x, 0.0, chroma) : vec3(chroma, 0.0, x);
  return rgb + m;
}

vec3 tone(vec3 c, float amount, float weight) {
  float a = amount / 100.0 * weight;
  return clamp(c + a * (a > 0.0 ? 1.0 - c : c) * 0.5, 0.0, 1.0);
}

vec3 lookUp(vec3 c) {
  vec3 p = clamp((c - u_domainMin) / (u_domainMax - u_domainMin), 0.0, 1.0);
  vec3 coord = (p * (u_lutSize - 1.0) + 0.5) / u_lutSize;
  if (u_lutKind == 3) return texture(u_lut3d, coord).rgb;
  return vec3(texture(u_lut1d, vec2(coord.r, 0.5)).r, texture(u_lut1d, vec2(coord.g, 0.5)).g, texture(u_lut1d, vec2(coord.b, 0.5)).b);
}

void main() {
  vec4 texel = texture(u_source, v_uv);
  if (u_sharpness > 0.0) {
    vec4 sum = vec4(0.0);
    for (int dx = -1; dx <= 1; dx++) for (int dy = -1; dy <= 1; dy++) sum += texture(u_source, v_uv + vec2(dx, dy) * u_texel);
    texel = clamp(texel + 2.0 * u_sharpness / 100.0 * (texel - sum / 9.0), 0.0, 1.0);
  }
  float alpha = texel.a;
  if (alpha <= 0.0) { outColor = vec4(0.0); return; }
  vec3 c = texel.rgb / alpha;
  if (u_exposure != 0.0) c = clamp(toSrgb(toLinear(c) * exp2(u_exposure / 25.0)), 0.0, 1.0);
  c = clamp(c * vec3(1.0 + 0.25 * u_temperature / 100.0, 1.0 - 0.25 * u_tint / 100.0, 1.0 - 0.25 * u_temperature / 100.0), 0.0, 1.0);
  float b = u_brightness / 100.0;
  c = b < 0.0 ? c * (1.0 + b) : c + (1.0 - c) * b;
  float k = u_contrast / 100.0;
  c = clamp((c - 0.5) * (k <= 0.0 ? 1.0 + k : 1.0 + 3.0 * k) + 0.5, 0.0, 1.0);
  if (u_highlights != 0.0) c = tone(c, u_highlights, smoothstep(0.25, 1.0, dot(c, LUMA)));
  if (u_shadows != 0.0) c = tone(c, u_shadows, 1.0 - smoothstep(0.0, 0.75, dot(c, LUMA)));
  float l = dot(c, LUMA);
  c = clamp(l + (c - l) * (1.0 + u_saturation / 100.0), 0.0, 1.0);
  if (u_vibrance != 0.0) {
    float sat = max(c.r, max(c.g, c.b)) - min(c.r, min(c.g, c.b));
    float l2 = dot(c, LUMA);
    c = clamp(l2 + (c - l2) * (1.0 + u_vibrance / 100.0 * (1.0 - sat)), 0.0, 1.0);
  }
  if (u_hue != 0.0) c = rotateHue(c, u_hue);
  if (u_lutKind != 0) c = mix(c, lookUp(c), u_lutIntensity);
  c = mix(c, u_overlay.rgb, u_overlay.a);
  if (u_vignette > 0.0) {
    float d = length(v_uv - 0.5) / 0.70710678;
    c *= 1.0 - u_vignette / 100.0 * smoothstep(0.3, 1.0, d);
  }
  if (u_noise > 0.0) {
    uvec2 p = uvec2(gl_FragCoord.xy);
    uint h = p.x * 73856093u ^ p.y * 19349663u ^ u_seed * 83492791u;
    h = (h ^ (h >> 13u)) * 1274126177u;
    h ^= h >> 16u;
    float n = float(h & 0xffffffu) / 16777215.0;
    c += (n - 0.5) * u_noise / 100.0 * 0.5;
  }
  c = clamp(c, 0.0, 1.0);
  outColor = vec4(c * alpha, alpha);
}`;

interface GradeState {
  gl: WebGL2RenderingContext;
  program: WebGLProgram;
  source: WebGLTexture;
  lut3d: WebGLTexture;
  lut1d: WebGLTexture;
  buffer: WebGLBuffer;
  vao: WebGLVertexArrayObject;
  lutKey: string | null;
  uniforms: Map<string, WebGLUniformLocation | null>;
}

function compile(gl: WebGL2RenderingContext, type: number, source: string): WebGLShader {
  const shader = gl.createShader(type)!;
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(`Colour grade shader: ${gl.getShaderInfoLog(shader)}`);
  return shader;
}

function texture(gl: WebGL2RenderingContext, target: number): WebGLTexture {
  const created = gl.createTexture()!;
  gl.bindTexture(target, created);
  for (const wrap of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T, gl.TEXTURE_WRAP_R]) gl.texParameteri(target, wrap, gl.CLAMP_TO_EDGE);
  gl.texParameteri(target, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(target, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  return created;
}

function uploadLut(state: GradeState, lut: CubeLut): void {
  const { gl } = state;
  // Typed-array uploads to 3D textures refuse the flip/premultiply flags the chain sets.
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  if (lut.kind === '3d') {
    gl.bindTexture(gl.TEXTURE_3D, state.lut3d);
    gl.texImage3D(gl.TEXTURE_3D, 0, gl.RGB16F, lut.size, lut.size, lut.size, 0, gl.RGB, gl.FLOAT, lut.table);
  } else {
    gl.bindTexture(gl.TEXTURE_2D, state.lut1d);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB16F, lut.size, 1, 0, gl.RGB, gl.FLOAT, lut.table);
  }
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, true);
}

export const gradeEffect = createEffect<GradeParams, GradeState>({
  type: 'video-render-service/grade',
  label: 'Colour grade',
  documentationLink: null,
  backend: 'webgl2',
  calculateKey: (params) => JSON.stringify([params.settings, params.lutKey, params.seed]),
  setup: (target) => {
    const gl = target.getContext('webgl2');
    if (!gl) throw new Error('The colour grade needs WebGL2');
    const program = gl.createProgram()!;
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(`Colour grade program: ${gl.getProgramInfoLog(program)}`);
    const vao = gl.createVertexArray()!;
    gl.bindVertexArray(vao);
    const buffer = gl.createBuffer()!;
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1]), gl.STATIC_DRAW);
    const location = gl.getAttribLocation(program, 'a_position');
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, 2, gl.FLOAT, false, 0, 0);
    const state: GradeState = {
      gl, program, vao, buffer, source: texture(gl, gl.TEXTURE_2D), lut3d: texture(gl, gl.TEXTURE_3D), lut1d: texture(gl, gl.TEXTURE_2D),
      lutKey: null, uniforms: new Map(),
    };
    return state;
  },
  apply: ({ source, state, params, width, height, flipSourceY }) => {
    const { gl, program } = state;
    const uniform = (name: string) => {
      if (!state.uniforms.has(name)) state.uniforms.set(name, gl.getUniformLocation(program, name));
      return state.uniforms.get(name)!;
    };
    gl.useProgram(program);
    gl.bindVertexArray(state.vao);
    gl.viewport(0, 0, width, height);
    if (params.lut && state.lutKey !== params.lutKey) {
      uploadLut(state, params.lut);
      state.lutKey = params.lutKey;
    }
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, state.source);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, flipSourceY);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, source as TexImageSource);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.uniform1i(uniform('u_source'), 0);
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_3D, state.lut3d);
    gl.uniform1i(uniform('u_lut3d'), 1);
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D, state.lut1d);
    gl.uniform1i(uniform('u_lut1d'), 2);
    const lut = params.lut;
    gl.uniform1i(uniform('u_lutKind'), lut ? (lut.kind === '3d' ? 3 : 1) : 0);
    gl.uniform1f(uniform('u_lutSize'), lut?.size ?? 2);
    gl.uniform3fv(uniform('u_domainMin'), lut?.domainMin ?? [0, 0, 0]);
    gl.uniform3fv(uniform('u_domainMax'), lut?.domainMax ?? [1, 1, 1]);
    const s = params.settings;
    gl.uniform1f(uniform('u_lutIntensity'), s.lutIntensity);
    gl.uniform2f(uniform('u_texel'), 1 / width, 1 / height);
    const scalars: [string, number][] = [
      ['u_exposure', s.exposure], ['u_temperature', s.temperature], ['u_tint', s.tint], ['u_brightness', s.brightness],
      ['u_contrast', s.contrast], ['u_highlights', s.highlights], ['u_shadows', s.shadows], ['u_saturation', s.saturation],
      ['u_vibrance', s.vibrance], ['u_hue', s.hueRotate % 360], ['u_sharpness', s.sharpness], ['u_noise', s.noise], ['u_vignette', s.vignette],
    ];
    for (const [name, value] of scalars) gl.uniform1f(uniform(name), value);
    gl.uniform4fv(uniform('u_overlay'), s.overlay ?? [0, 0, 0, 0]);
    gl.uniform1ui(uniform('u_seed'), params.seed >>> 0);
    gl.drawArrays(gl.TRIANGLES, 0, 6);
  },
  cleanup: (state) => {
    const { gl } = state;
    gl.deleteTexture(state.source);
    gl.deleteTexture(state.lut3d);
    gl.deleteTexture(state.lut1d);
    gl.deleteBuffer(state.buffer);
    gl.deleteVertexArray(state.vao);
    gl.deleteProgram(state.program);
  },
  schema: {},
  validateParams: () => undefined,
});
