/*
 * glref: samples textures through a real OpenGL implementation (Mesa, by OSMesa, off
 * screen) so that gpurtl can compare its texture unit's model with it.
 *
 * Built and driven by src/sim/glref.rs; not meant to be run by hand. Input on stdin, a
 * sequence of cases, each:
 *
 *   case FORMAT LEVELS
 *   level W H NBYTES HEX        one per level, base level first, GL's upload bytes
 *   sampler MIN MAG WRAP_S WRAP_T LOD_BIAS MIN_LOD MAX_LOD
 *   samples N
 *   S T MODE A B C D            N lines. MODE 0: textureLod(S, T; lod A).
 *                               MODE 1: textureGrad(S, T; dPdx (A, B), dPdy (C, D)).
 *
 * FORMAT is one of gpurtl's texel formats; MIN, MAG and WRAP_* are GL enum values. For
 * every case stdout gets N lines `R G B A` (0..255): each sample is one point, one
 * fragment, whose colour is read back from an RGBA8 framebuffer.
 *
 * Or a glDrawPixels through the fixed-function pixel path:
 *
 *   draw W H X Y ZOOM_X ZOOM_Y  an RGBA8 picture W x H drawn at window position (X, Y)
 *   transfer R_SCALE G_SCALE B_SCALE A_SCALE R_BIAS G_BIAS B_BIAS A_BIAS
 *   maps K                      then K lines `map CHANNEL N V0 .. VN-1` (R_TO_R = 0 ..
 *                               A_TO_A = 3, values in [0, 1]); K > 0 turns MAP_COLOR on
 *   pixels HEX                  4 * W * H bytes, GL row 0 first
 *
 * Stdout gets `written N`, then N lines `X Y R G B A`: every framebuffer pixel the draw
 * wrote (found by drawing twice over two different clear colours).
 *
 * Or a glReadPixels through the fixed-function pixel path:
 *
 *   read W H FORMAT             a W x H region at (0, 0), packed in FORMAT (one of
 *                               gpurtl's DMA formats, pack alignment 1)
 *   transfer R_SCALE G_SCALE B_SCALE A_SCALE R_BIAS G_BIAS B_BIAS A_BIAS
 *   pixels HEX                  4 * W * H bytes, the region's RGBA8 contents, row 0 first
 *
 * Stdout gets `read N HEX`: the N bytes glReadPixels returned under that transfer state.
 *
 * Or a colour-index glDrawPixels (GL_COLOR_INDEX, GL_UNSIGNED_BYTE) into the RGBA
 * framebuffer:
 *
 *   index W H SHIFT OFFSET      drawn at (0, 0) under GL_INDEX_SHIFT and GL_INDEX_OFFSET
 *   map CHANNEL N V0 .. VN-1    four lines, I_TO_R = 0 .. I_TO_A = 3 in order, N a power
 *                               of two, values in [0, 1]
 *   pixels HEX                  W * H indices, GL row 0 first
 *
 * Stdout gets `index N HEX`: the drawn region read back as RGBA8, N = 4 * W * H bytes.
 */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/osmesa.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FB_W = 256, FB_H = 256 };

static void die(const char *what) {
  fprintf(stderr, "glref: %s\n", what);
  exit(2);
}

static void check_gl(const char *where) {
  GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    fprintf(stderr, "glref: GL error 0x%x at %s\n", e, where);
    exit(2);
  }
}

static const char *VS =
    "#version 130\n"
    "void main() {\n"
    "  gl_TexCoord[0] = gl_MultiTexCoord0;\n"
    "  gl_TexCoord[1] = gl_MultiTexCoord1;\n"
    "  gl_Position = ftransform();\n"
    "}\n";

/* The coordinates are constant over a point, so the implicit derivatives would be 0:
 * a quad's LOD comes from its lanes' differences, given explicitly as gradients. */
static const char *FS =
    "#version 130\n"
    "uniform sampler2D tex;\n"
    "void main() {\n"
    "  vec4 a = gl_TexCoord[0];\n"
    "  vec4 d = gl_TexCoord[1];\n"
    "  if (a.w > 0.5)\n"
    "    gl_FragColor = textureGrad(tex, a.xy, d.xy, d.zw);\n"
    "  else\n"
    "    gl_FragColor = textureLod(tex, a.xy, a.z);\n"
    "}\n";

static GLuint shader(GLenum kind, const char *src) {
  GLuint s = glCreateShader(kind);
  GLint ok = 0;
  glShaderSource(s, 1, &src, NULL);
  glCompileShader(s);
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    fprintf(stderr, "glref: shader: %s\n", log);
    exit(2);
  }
  return s;
}

struct format {
  const char *name;
  GLenum internal, format, type; /* internal 0: compressed */
  int bytes;                     /* per texel, uncompressed */
};

static const struct format FORMATS[] = {
    {"rgba8888", GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, 4},
    {"bgra8888", GL_RGBA8, GL_BGRA, GL_UNSIGNED_BYTE, 4},
    {"rgb565", GL_RGB565, GL_RGB, GL_UNSIGNED_SHORT_5_6_5, 2},
    {"rgba4444", GL_RGBA4, GL_RGBA, GL_UNSIGNED_SHORT_4_4_4_4, 2},
    {"rgba5551", GL_RGB5_A1, GL_RGBA, GL_UNSIGNED_SHORT_5_5_5_1, 2},
    {"l8", GL_LUMINANCE8, GL_LUMINANCE, GL_UNSIGNED_BYTE, 1},
    {"la88", GL_LUMINANCE8_ALPHA8, GL_LUMINANCE_ALPHA, GL_UNSIGNED_BYTE, 2},
    {"a8", GL_ALPHA8, GL_ALPHA, GL_UNSIGNED_BYTE, 1},
    {"dxt1", 0, GL_COMPRESSED_RGBA_S3TC_DXT1_EXT, 0, 0},
};

static const struct format *find_format(const char *name) {
  for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
    if (strcmp(FORMATS[i].name, name) == 0) return &FORMATS[i];
  die("unknown format");
  return NULL;
}

static int hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  die("bad hex digit");
  return 0;
}

/* `n` bytes as hex digits, after optional spaces. */
static unsigned char *read_bytes(long n) {
  unsigned char *bytes = malloc(n > 0 ? (size_t)n : 1);
  int c;
  while ((c = getchar()) == ' ') {
  }
  for (long i = 0; i < n; i++) {
    int hi = hex(i == 0 ? c : getchar());
    int lo = hex(getchar());
    bytes[i] = (unsigned char)(hi << 4 | lo);
  }
  return bytes;
}

static unsigned char *read_hex(const char *keyword, long n) {
  char word[16];
  if (scanf("%15s", word) != 1 || strcmp(word, keyword) != 0) die("expected hex bytes");
  return read_bytes(n);
}

static void read_level(const struct format *f, int level) {
  int w, h;
  long n;
  char word[16];
  if (scanf("%15s %d %d %ld", word, &w, &h, &n) != 4 || strcmp(word, "level") != 0)
    die("expected `level W H NBYTES HEX`");
  unsigned char *bytes = read_bytes(n);
  if (f->internal == 0) {
    glCompressedTexImage2D(GL_TEXTURE_2D, level, f->format, w, h, 0, (GLsizei)n, bytes);
  } else {
    if (n != (long)w * h * f->bytes) die("level size does not match its format");
    glTexImage2D(GL_TEXTURE_2D, level, (GLint)f->internal, w, h, 0, f->format, f->type, bytes);
  }
  check_gl("glTexImage2D");
  free(bytes);
}

struct transfer {
  float scale[4], bias[4];
  int maps;
  int size[4];
  GLfloat *values[4];
};

/* The pixel-transfer state of a draw, or GL's defaults: it applies to glReadPixels too. */
static void set_transfer(const struct transfer *t) {
  static const GLenum scale[4] = {GL_RED_SCALE, GL_GREEN_SCALE, GL_BLUE_SCALE, GL_ALPHA_SCALE};
  static const GLenum bias[4] = {GL_RED_BIAS, GL_GREEN_BIAS, GL_BLUE_BIAS, GL_ALPHA_BIAS};
  static const GLenum map[4] = {GL_PIXEL_MAP_R_TO_R, GL_PIXEL_MAP_G_TO_G, GL_PIXEL_MAP_B_TO_B,
                                GL_PIXEL_MAP_A_TO_A};
  for (int c = 0; c < 4; c++) {
    glPixelTransferf(scale[c], t ? t->scale[c] : 1.0f);
    glPixelTransferf(bias[c], t ? t->bias[c] : 0.0f);
    if (t && t->values[c]) glPixelMapfv(map[c], t->size[c], t->values[c]);
  }
  glPixelTransferi(GL_MAP_COLOR, t && t->maps > 0 ? GL_TRUE : GL_FALSE);
}

static void draw_case(GLuint prog) {
  int w, h, x, y;
  float zx, zy;
  struct transfer t = {{0}, {0}, 0, {0}, {NULL}};
  char word[16];
  if (scanf("%d %d %d %d %f %f", &w, &h, &x, &y, &zx, &zy) != 6)
    die("expected `draw W H X Y ZOOM_X ZOOM_Y`");
  if (scanf("%15s %f %f %f %f %f %f %f %f", word, &t.scale[0], &t.scale[1], &t.scale[2],
            &t.scale[3], &t.bias[0], &t.bias[1], &t.bias[2], &t.bias[3]) != 9 ||
      strcmp(word, "transfer") != 0)
    die("expected `transfer` and 8 numbers");
  if (scanf("%15s %d", word, &t.maps) != 2 || strcmp(word, "maps") != 0) die("expected `maps K`");
  for (int i = 0; i < t.maps; i++) {
    int ch, n;
    if (scanf("%15s %d %d", word, &ch, &n) != 3 || strcmp(word, "map") != 0 || ch < 0 ||
        ch > 3 || n < 1 || n > 4096)
      die("expected `map CHANNEL N VALUES`");
    free(t.values[ch]);
    t.values[ch] = malloc(sizeof(GLfloat) * (size_t)n);
    t.size[ch] = n;
    for (int j = 0; j < n; j++)
      if (scanf("%f", &t.values[ch][j]) != 1) die("expected a map value");
  }
  unsigned char *px = read_hex("pixels", 4L * w * h);
  static unsigned char a[FB_W * FB_H * 4], b[FB_W * FB_H * 4];
  unsigned char *runs[2] = {a, b};
  glUseProgram(0);
  for (int r = 0; r < 2; r++) {
    glClearColor(r ? 1.0f : 0.0f, r ? 0.0f : 1.0f, 0.5f, r ? 0.0f : 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    set_transfer(&t);
    glPixelZoom(zx, zy);
    glWindowPos2i(x, y);
    glDrawPixels(w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    set_transfer(NULL);
    glPixelZoom(1.0f, 1.0f);
    glReadPixels(0, 0, FB_W, FB_H, GL_RGBA, GL_UNSIGNED_BYTE, runs[r]);
    check_gl("glDrawPixels");
  }
  glUseProgram(prog);
  long n = 0;
  for (long i = 0; i < FB_W * FB_H; i++) n += memcmp(a + 4 * i, b + 4 * i, 4) == 0;
  printf("written %ld\n", n);
  for (long i = 0; i < FB_W * FB_H; i++)
    if (memcmp(a + 4 * i, b + 4 * i, 4) == 0)
      printf("%ld %ld %d %d %d %d\n", i % FB_W, i / FB_W, a[4 * i], a[4 * i + 1], a[4 * i + 2],
             a[4 * i + 3]);
  for (int c = 0; c < 4; c++) free(t.values[c]);
  free(px);
}

static void read_case(GLuint prog) {
  int w, h;
  char fname[16], word[16];
  float scale[4], bias[4];
  if (scanf("%d %d %15s", &w, &h, fname) != 3) die("expected `read W H FORMAT`");
  const struct format *f = find_format(fname);
  if (f->internal == 0 || w < 1 || h < 1 || w > FB_W || h > FB_H) die("bad read case");
  if (scanf("%15s %f %f %f %f %f %f %f %f", word, &scale[0], &scale[1], &scale[2], &scale[3],
            &bias[0], &bias[1], &bias[2], &bias[3]) != 9 ||
      strcmp(word, "transfer") != 0)
    die("expected `transfer` and 8 numbers");
  unsigned char *px = read_hex("pixels", 4L * w * h);
  long n = (long)w * h * f->bytes;
  unsigned char *out = malloc((size_t)n);
  struct transfer t = {{0}, {0}, 0, {0}, {NULL}};
  memcpy(t.scale, scale, sizeof scale);
  memcpy(t.bias, bias, sizeof bias);
  glUseProgram(0);
  /* The region's contents, drawn with GL's default transfer state (exact for RGBA8). */
  set_transfer(NULL);
  glPixelZoom(1.0f, 1.0f);
  glWindowPos2i(0, 0);
  glDrawPixels(w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
  set_transfer(&t);
  glReadPixels(0, 0, w, h, f->format, f->type, out);
  set_transfer(NULL);
  check_gl("glReadPixels");
  glUseProgram(prog);
  printf("read %ld ", n);
  for (long i = 0; i < n; i++) printf("%02x", out[i]);
  printf("\n");
  free(out);
  free(px);
}

static void index_case(GLuint prog) {
  static const GLenum map[4] = {GL_PIXEL_MAP_I_TO_R, GL_PIXEL_MAP_I_TO_G, GL_PIXEL_MAP_I_TO_B,
                                GL_PIXEL_MAP_I_TO_A};
  int w, h, shift, offset;
  char word[16];
  if (scanf("%d %d %d %d", &w, &h, &shift, &offset) != 4 || w < 1 || h < 1 || w > FB_W ||
      h > FB_H)
    die("expected `index W H SHIFT OFFSET`");
  GLfloat *values[4];
  int size[4];
  for (int c = 0; c < 4; c++) {
    int ch, n;
    if (scanf("%15s %d %d", word, &ch, &n) != 3 || strcmp(word, "map") != 0 || ch != c ||
        n < 1 || n > 4096 || (n & (n - 1)) != 0)
      die("expected `map CHANNEL N VALUES`, channels in order, N a power of two");
    values[c] = malloc(sizeof(GLfloat) * (size_t)n);
    size[c] = n;
    for (int j = 0; j < n; j++)
      if (scanf("%f", &values[c][j]) != 1) die("expected a map value");
  }
  unsigned char *px = read_hex("pixels", (long)w * h);
  long n = 4L * w * h;
  unsigned char *out = malloc((size_t)n);
  glUseProgram(0);
  set_transfer(NULL);
  for (int c = 0; c < 4; c++) glPixelMapfv(map[c], size[c], values[c]);
  glPixelTransferi(GL_INDEX_SHIFT, shift);
  glPixelTransferi(GL_INDEX_OFFSET, offset);
  glPixelZoom(1.0f, 1.0f);
  glWindowPos2i(0, 0);
  glDrawPixels(w, h, GL_COLOR_INDEX, GL_UNSIGNED_BYTE, px);
  glPixelTransferi(GL_INDEX_SHIFT, 0);
  glPixelTransferi(GL_INDEX_OFFSET, 0);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, out);
  check_gl("glDrawPixels (colour index)");
  glUseProgram(prog);
  printf("index %ld ", n);
  for (long i = 0; i < n; i++) printf("%02x", out[i]);
  printf("\n");
  for (int c = 0; c < 4; c++) free(values[c]);
  free(out);
  free(px);
}

int main(void) {
  int attrs[] = {OSMESA_FORMAT, OSMESA_RGBA, OSMESA_DEPTH_BITS, 0,
                 OSMESA_PROFILE, OSMESA_COMPAT_PROFILE, 0};
  OSMesaContext ctx = OSMesaCreateContextAttribs(attrs, NULL);
  if (!ctx) die("cannot create an OSMesa context");
  static unsigned char fb[FB_W * FB_H * 4];
  if (!OSMesaMakeCurrent(ctx, fb, GL_UNSIGNED_BYTE, FB_W, FB_H)) die("cannot make it current");
  /* OSMesa's default is row 0 at the bottom, as glReadPixels: no flipping needed. */

  GLuint prog = glCreateProgram();
  glAttachShader(prog, shader(GL_VERTEX_SHADER, VS));
  glAttachShader(prog, shader(GL_FRAGMENT_SHADER, FS));
  glLinkProgram(prog);
  glUseProgram(prog);
  glUniform1i(glGetUniformLocation(prog, "tex"), 0);
  glViewport(0, 0, FB_W, FB_H);
  glMatrixMode(GL_PROJECTION);
  glLoadIdentity();
  glOrtho(0, FB_W, 0, FB_H, -1, 1);
  glMatrixMode(GL_MODELVIEW);
  glLoadIdentity();
  glDisable(GL_DITHER);
  glDisable(GL_BLEND);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  check_gl("setup");

  char word[16];
  while (scanf("%15s", word) == 1) {
    if (strcmp(word, "draw") == 0) {
      draw_case(prog);
      continue;
    }
    if (strcmp(word, "read") == 0) {
      read_case(prog);
      continue;
    }
    if (strcmp(word, "index") == 0) {
      index_case(prog);
      continue;
    }
    if (strcmp(word, "case") != 0) die("expected `case`, `draw`, `read` or `index`");
    char fname[16];
    int levels;
    if (scanf("%15s %d", fname, &levels) != 2) die("expected `case FORMAT LEVELS`");
    const struct format *f = find_format(fname);
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    for (int l = 0; l < levels; l++) read_level(f, l);
    int min, mag, ws, wt;
    float bias, min_lod, max_lod;
    if (scanf("%15s %d %d %d %d %f %f %f", word, &min, &mag, &ws, &wt, &bias, &min_lod,
              &max_lod) != 8 ||
        strcmp(word, "sampler") != 0)
      die("expected `sampler MIN MAG WRAP_S WRAP_T LOD_BIAS MIN_LOD MAX_LOD`");
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, levels - 1);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, ws);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wt);
    glTexParameterf(GL_TEXTURE_2D, GL_TEXTURE_LOD_BIAS, bias);
    glTexParameterf(GL_TEXTURE_2D, GL_TEXTURE_MIN_LOD, min_lod);
    glTexParameterf(GL_TEXTURE_2D, GL_TEXTURE_MAX_LOD, max_lod);
    check_gl("glTexParameter");
    long n;
    if (scanf("%15s %ld", word, &n) != 2 || strcmp(word, "samples") != 0)
      die("expected `samples N`");
    /* A framebuffer's worth of points at a time. */
    for (long done = 0; done < n;) {
      long batch = n - done < FB_W * FB_H ? n - done : FB_W * FB_H;
      glClearColor(0, 0, 0, 0);
      glClear(GL_COLOR_BUFFER_BIT);
      glBegin(GL_POINTS);
      for (long i = 0; i < batch; i++) {
        float s, t, a, b, c, d;
        int mode;
        if (scanf("%f %f %d %f %f %f %f", &s, &t, &mode, &a, &b, &c, &d) != 7)
          die("expected `S T MODE A B C D`");
        if (mode == 0) {
          glMultiTexCoord4f(GL_TEXTURE0, s, t, a, 0.0f);
          glMultiTexCoord4f(GL_TEXTURE1, 0, 0, 0, 0);
        } else {
          glMultiTexCoord4f(GL_TEXTURE0, s, t, 0.0f, 1.0f);
          glMultiTexCoord4f(GL_TEXTURE1, a, b, c, d);
        }
        glVertex2f((float)(i % FB_W) + 0.5f, (float)(i / FB_W) + 0.5f);
      }
      glEnd();
      glFinish();
      check_gl("drawing");
      unsigned char *px = malloc((size_t)batch * 4 + FB_W * 4);
      long rows = (batch + FB_W - 1) / FB_W;
      glReadPixels(0, 0, FB_W, (GLsizei)rows, GL_RGBA, GL_UNSIGNED_BYTE, px);
      check_gl("glReadPixels");
      for (long i = 0; i < batch; i++)
        printf("%d %d %d %d\n", px[4 * i], px[4 * i + 1], px[4 * i + 2], px[4 * i + 3]);
      free(px);
      done += batch;
    }
    glDeleteTextures(1, &tex);
  }
  fflush(stdout);
  OSMesaDestroyContext(ctx);
  return 0;
}
