#define _POSIX_C_SOURCE 200809L
#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void herd_read_key(const char *path, const char *key, char *out, size_t size) {
  FILE *f = fopen(path, "r");
  char line[512];
  out[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, key, strlen(key)) != 0) continue;
    char *v = strchr(line, key[strlen(key) - 1] == '=' ? '=' : ':');
    v = v ? v + 1 : line;
    while (*v == ' ' || *v == '\t' || *v == '"') ++v;
    snprintf(out, size, "%.*s", (int)(size - 1), v);
    out[strcspn(out, "\"\n")] = '\0';
    break;
  }
  if (f) fclose(f);
}

json_t *herd_host_json(void) {
  char cpu[256], mem[64], os[128], name[256] = "";
  herd_read_key("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  herd_read_key("/proc/meminfo", "MemTotal:", mem, sizeof mem);
  herd_read_key("/etc/os-release", "PRETTY_NAME=", os, sizeof os);
  gethostname(name, sizeof name - 1);
  struct utsname u;
  char kernel[2 * sizeof u.release + 2] = "";
  if (uname(&u) == 0) snprintf(kernel, sizeof kernel, "%s %s", u.release, u.machine);
  return json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "name", name, "cpu", cpu, "cores",
                   (int)sysconf(_SC_NPROCESSORS_ONLN), "memory", mem, "os", os, "kernel", kernel);
}

const char *herd_compiler_text(void) {
#ifdef __VERSION__
  return "GCC-compatible " __VERSION__;
#else
  return "unknown";
#endif
}

void herd_utc_now(char *out, size_t size) {
  time_t t = time(NULL);
  strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

char *herd_command_line(int argc, char **argv) {
  const char *herd = argc > 0 && strstr(argv[0], "herd") ? "" : "herd ";
  size_t len = strlen(herd) + 1;
  for (int i = 0; i < argc; ++i) len += strlen(argv[i]) + 1;
  char *line = malloc(len), *at = line;
  if (!line) return NULL;
  at += sprintf(at, "%s", herd);
  for (int i = 0; i < argc; ++i) at += sprintf(at, "%s%s", i ? " " : "", argv[i]);
  return line;
}

static json_t *command_json(int argc, char **argv) {
  char *line = herd_command_line(argc, argv);
  json_t *s = line ? json_string(line) : NULL; /* NULL for text that is not UTF-8: then left out */
  free(line);
  return s;
}

static json_t *scenario_json(const herd_scenario *sc) {
  char *text = herd_scenario_to_json(sc);
  json_t *v = text ? json_loads(text, 0, NULL) : NULL;
  free(text);
  return v;
}

json_t *herd_provenance(const herd_scenario *sc, const herd_sim *sim, int argc, char **argv) {
  char date[32];
  herd_utc_now(date, sizeof date);
  json_t *p = json_pack("{s:{s:s, s:s}, s:s, s:o, s:s}", "herd", "version", herd_version(), "commit",
                        herd_build_commit(), "date", date, "host", herd_host_json(), "compiler", herd_compiler_text());
  if (!p) return NULL;
  if (argv) json_object_set_new(p, "command", command_json(argc, argv));
  if (sc) {
    json_object_set_new(p, "seed", json_integer((json_int_t)herd_scenario_describe(sc).seed));
    json_object_set_new(p, "scenario", scenario_json(sc));
  }
  if (sim)
    json_object_set_new(p, "backend",
                        json_pack("{s:s, s:s}", "name", herd_sim_backend(sim), "device", herd_sim_device(sim)));
  return p;
}

static bool has_control(const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
    if (*c < 0x20 || *c == 0x7f) return true;
  return false;
}

bool herd_provenance_csv(FILE *f, const herd_scenario *sc, const herd_sim *sim, int argc, char **argv) {
  json_t *p = herd_provenance(sc, sim, argc, argv);
  if (!p) return false;
  herd_csv_comments(f, p);
  json_decref(p);
  return true;
}

void herd_csv_comments(FILE *f, json_t *p) {
  const char *key;
  json_t *value;
  json_object_foreach(p, key, value) {
    const char *text = json_string_value(value);
    if (text && !has_control(text)) {
      fprintf(f, "# %s: %s\n", key, text);
    } else {
      /* One line whatever the value holds: JSON escapes every newline. */
      char *json = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
      if (json) fprintf(f, "# %s: %s\n", key, json);
      free(json);
    }
  }
}
