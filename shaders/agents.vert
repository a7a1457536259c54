#version 330 core
// One agent (a flock agent or a steering agent) as an oriented triangle, instanced straight from the agent
// buffers: corner is the triangle's vertex in the body frame (x ahead, y to the left).
layout(location = 0) in vec2 corner;
layout(location = 1) in vec2 pos;
layout(location = 2) in vec2 heading;
layout(location = 3) in uint agent; // id and flags (kernels/agent.h)

uniform mat4 view;          // world metres -> clip space
uniform float body_m;       // body length in metres
uniform vec3 state_color[4]; // still, moved this step, delivered, reacting to a steering agent
uniform bool use_fixed;     // dogs: one colour for all
uniform vec3 fixed_color;

out vec3 color;

void main() {
  vec2 ahead = dot(heading, heading) > 0.0 ? normalize(heading) : vec2(1.0, 0.0);
  vec2 left = vec2(-ahead.y, ahead.x);
  vec2 world = pos + body_m * (corner.x * ahead + corner.y * left);
  gl_Position = view * vec4(world, 0.0, 1.0);
  if (use_fixed) {
    color = fixed_color;
  } else if ((agent & 0x80000000u) != 0u) {
    color = state_color[2];
  } else if ((agent & 0x20000000u) != 0u) {
    color = state_color[3];
  } else if ((agent & 0x40000000u) != 0u) {
    color = state_color[1];
  } else {
    color = state_color[0];
  }
}
