#include "scenario_fields.h"

#include <stdio.h>
#include <string.h>

#define AT(member) offsetof(herd_scenario, member)
#define BIG 1.0e9

/* Keep in step with docs/scenario.md (a test checks that every row is documented there). */
const scenario_field scenario_fields[] = {
    {"model", FIELD_MODEL, AT(model), {0, 0}, 0, 0, false},
    {"seed", FIELD_SEED, AT(seed), {1, 0}, 0, 9007199254740991.0, false},
    {"max_steps", FIELD_UINT, AT(max_steps), {5000, 0}, 1, 1.0e9, false},
    {"field.size_m", FIELD_FLOAT, AT(field.size_m), {150, 0}, 0, 1.0e7, true},
    {"target.position_m", FIELD_VEC2, AT(target.position_m), {0, 0}, -1.0e7, 1.0e7, false},
    {"target.goal_radius_m", FIELD_FLOAT, AT(target.goal_radius_m), {15, 0}, 0, 1.0e7, true},
    {"sheep.count", FIELD_UINT, AT(sheep.count), {100, 0}, 2, 1.0e8, false},
    /* Further limits in check_relations: 1 to 256, or sheep.count - 1. */
    {"sheep.neighbours", FIELD_UINT, AT(sheep.neighbours), {50, 0}, 0, 1.0e8, false},
    {"sheep.speed_m_per_step", FIELD_FLOAT, AT(sheep.speed_m_per_step), {1, 0}, 0, 1000, true},
    {"sheep.repulsion_radius_m", FIELD_FLOAT, AT(sheep.repulsion_radius_m), {2, 0}, 0, 1000, true},
    {"sheep.dog_radius_m", FIELD_FLOAT, AT(sheep.dog_radius_m), {65, 0}, 0, BIG, false},
    {"sheep.inertia", FIELD_FLOAT, AT(sheep.inertia), {0.5, 0}, 0, 1000, false},
    {"sheep.attraction", FIELD_FLOAT, AT(sheep.attraction), {1.05, 0}, 0, 1000, false},
    {"sheep.repulsion", FIELD_FLOAT, AT(sheep.repulsion), {2, 0}, 0, 1000, false},
    {"sheep.dog_repulsion", FIELD_FLOAT, AT(sheep.dog_repulsion), {1, 0}, 0, 1000, false},
    {"sheep.noise", FIELD_FLOAT, AT(sheep.noise), {0.3, 0}, 0, 1000, false},
    {"sheep.graze_probability", FIELD_FLOAT, AT(sheep.graze_probability), {0.05, 0}, 0, 1, false},
    {"sheep.spawn.from", FIELD_VEC2, AT(sheep.spawn.from), {2.0 / 3.0, 2.0 / 3.0}, -100, 100, false},
    {"sheep.spawn.to", FIELD_VEC2, AT(sheep.spawn.to), {1, 1}, -100, 100, false},
    {"dogs.count", FIELD_UINT, AT(dogs.count), {1, 0}, 0, HERD_MAX_DOGS, false},
    {"dogs.start", FIELD_VEC2, AT(dogs.start), {0, 0}, -100, 100, false},
    {"dogs.spacing_m", FIELD_FLOAT, AT(dogs.spacing_m), {5, 0}, 0, 1.0e7, false},
    {"dogs.speed_m_per_step", FIELD_FLOAT, AT(dogs.speed_m_per_step), {1.5, 0}, 0, 1000, true},
    {"dogs.noise", FIELD_FLOAT, AT(dogs.noise), {0.3, 0}, 0, 1000, false},
};
const size_t scenario_field_count = sizeof scenario_fields / sizeof scenario_fields[0];

const scenario_field *scenario_field_find(const char *path) {
  for (size_t i = 0; i < scenario_field_count; ++i)
    if (strcmp(scenario_fields[i].path, path) == 0) return &scenario_fields[i];
  return NULL;
}

bool scenario_group_exists(const char *path) {
  size_t len = strlen(path);
  for (size_t i = 0; i < scenario_field_count; ++i) {
    const char *p = scenario_fields[i].path;
    if (strncmp(p, path, len) == 0 && p[len] == '.') return true;
  }
  return false;
}

/* Levenshtein distance between a and the first lb characters of b. */
static size_t edit_distance(const char *a, const char *b, size_t lb) {
  if (lb > 127) return (size_t)-1;
  size_t row[128];
  for (size_t j = 0; j <= lb; ++j) row[j] = j;
  for (size_t i = 1; a[i - 1]; ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; ++j) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

bool scenario_nearest_name(const char *path, char *out, size_t size) {
  const char *best = NULL;
  size_t best_len = 0, best_d = (size_t)-1;
  for (size_t i = 0; i < scenario_field_count; ++i) {
    const char *p = scenario_fields[i].path;
    /* Candidates: the field itself and each group above it ("sheep", "sheep.spawn"). */
    for (const char *end = p;; ++end) {
      if (*end != '.' && *end != '\0') continue;
      size_t d = edit_distance(path, p, (size_t)(end - p));
      if (d < best_d) {
        best_d = d;
        best = p;
        best_len = (size_t)(end - p);
      }
      if (*end == '\0') break;
    }
  }
  size_t limit = strlen(path) / 3;
  if (limit < 2) limit = 2;
  if (!best || best_d > limit) return false;
  snprintf(out, size, "%.*s", (int)best_len, best);
  return true;
}

void scenario_names_under(const char *prefix, char *out, size_t size) {
  size_t plen = strlen(prefix), used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < scenario_field_count; ++i) {
    const char *p = scenario_fields[i].path;
    if (plen && (strncmp(p, prefix, plen) != 0 || p[plen] != '.')) continue;
    const char *name = plen ? p + plen + 1 : p;
    size_t nlen = strcspn(name, ".");
    /* Skip a name already listed (several fields share a group). */
    bool listed = false;
    for (size_t j = 0; j < i && !listed; ++j) {
      const char *q = scenario_fields[j].path;
      if (plen && (strncmp(q, prefix, plen) != 0 || q[plen] != '.')) continue;
      const char *qn = plen ? q + plen + 1 : q;
      listed = strcspn(qn, ".") == nlen && strncmp(qn, name, nlen) == 0;
    }
    if (listed) continue;
    int w = snprintf(out + used, size - used, "%s%.*s", used ? ", " : "", (int)nlen, name);
    if (w < 0 || (size_t)w >= size - used) return;
    used += (size_t)w;
  }
}

void scenario_set_defaults(herd_scenario *sc) {
  memset(sc, 0, sizeof *sc);
  for (size_t i = 0; i < scenario_field_count; ++i) {
    const scenario_field *f = &scenario_fields[i];
    char *at = (char *)sc + f->offset;
    switch (f->kind) {
      case FIELD_UINT: *(uint32_t *)at = (uint32_t)f->def[0]; break;
      case FIELD_SEED: *(uint64_t *)at = (uint64_t)f->def[0]; break;
      case FIELD_FLOAT: *(float *)at = (float)f->def[0]; break;
      case FIELD_VEC2:
        ((float *)at)[0] = (float)f->def[0];
        ((float *)at)[1] = (float)f->def[1];
        break;
      case FIELD_MODEL: *(herd_model *)at = HERD_MODEL_STROMBOM; break;
    }
  }
}
