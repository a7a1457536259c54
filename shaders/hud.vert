#version 330 core
// HUD text in window pixels, origin at the top left (stb_easy_font's vertices).
layout(location = 0) in vec2 pixel;
layout(location = 1) in vec4 rgba;
uniform vec2 screen; // framebuffer size in pixels
uniform float scale; // text size multiplier
out vec3 color;

void main() {
  vec2 p = pixel * scale;
  gl_Position = vec4(2.0 * p.x / screen.x - 1.0, 1.0 - 2.0 * p.y / screen.y, 0.0, 1.0);
  color = rgba.rgb;
}
