#version 330 core
// Lines and fills in world metres (the field, the target and its goal radius).
layout(location = 0) in vec2 world;
uniform mat4 view;
uniform vec3 shape_color;
out vec3 color;

void main() {
  gl_Position = view * vec4(world, 0.0, 1.0);
  color = shape_color;
}
