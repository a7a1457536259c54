#version 330 core
// Lines and fills in world metres (the world box, the target and its goal radius); 2D shapes read z = 0.
layout(location = 0) in vec3 world;
uniform mat4 view;
uniform vec3 shape_color;
out vec3 color;

void main() {
  gl_Position = view * vec4(world, 1.0);
  color = shape_color;
}
