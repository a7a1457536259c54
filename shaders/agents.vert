#version 330 core
// One agent (a flock agent or a steering agent), instanced straight from the agent buffers. corner is a vertex of
// its body in the body frame, x ahead, y to the left, z up: a flat triangle in 2D, a cone in 3D; normal is the
// body's surface normal there (3D only). pos and heading come as float2 in 2D (z reads 0) and as float4 in 3D (w
// unused), so one shader draws both.
layout(location = 0) in vec3 corner;
layout(location = 1) in vec3 pos;
layout(location = 2) in vec3 heading;
layout(location = 3) in uint agent; // id and flags (kernels/agent.h)
layout(location = 4) in vec3 normal;
layout(location = 5) in uint group; // the agent's tracked group (herd_sim_map_groups), 0xffffffff untracked

uniform mat4 view;           // world metres -> clip space
uniform float body_m;        // body length in metres
uniform vec3 state_color[4]; // still, moved this step, delivered, reacting to a steering agent
uniform bool use_fixed;      // steering agents: one colour for all
uniform vec3 fixed_color;
uniform bool by_group;       // groups observed and shown: the group's colour instead of the state's
uniform vec3 group_color[16]; // HERD_GROUP_COLORS, cycled by the group index
uniform vec3 untracked_color;
uniform bool lit;            // 3D: one directional light (Lambert) plus ambient, so a cone reads as a solid
uniform vec3 light;          // unit vector toward the light, world frame
uniform float ambient;       // the darkest a surface gets, as a fraction of its colour

out vec3 color;

vec3 state_color_of(uint word) {
  if ((word & 0x80000000u) != 0u) return state_color[2];
  if ((word & 0x20000000u) != 0u) return state_color[3];
  if ((word & 0x40000000u) != 0u) return state_color[1];
  return state_color[0];
}

void main() {
  vec3 ahead = dot(heading, heading) > 0.0 ? normalize(heading) : vec3(1.0, 0.0, 0.0);
  // Left stays level (the horizontal turn of ahead); heading straight up or down, any level axis will do.
  vec3 left = vec3(-ahead.y, ahead.x, 0.0);
  left = dot(left, left) > 1e-12 ? normalize(left) : vec3(0.0, 1.0, 0.0);
  vec3 up = cross(ahead, left);
  vec3 world = pos + body_m * (corner.x * ahead + corner.y * left + corner.z * up);
  gl_Position = view * vec4(world, 1.0);
  float shade = 1.0;
  vec3 facing = normal.x * ahead + normal.y * left + normal.z * up; // the normal in the world frame
  if (lit) shade = ambient + (1.0 - ambient) * max(dot(facing, light), 0.0);
  vec3 flock_color = by_group ? (group == 0xffffffffu ? untracked_color : group_color[group % 16u])
                              : state_color_of(agent);
  color = (use_fixed ? fixed_color : flock_color) * shade;
}
