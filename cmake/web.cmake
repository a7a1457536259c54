# The web build (scripts/web.sh, under emcmake): the library's CPU backend and the viewer's
# renderer in one WebAssembly module with the page that drives it (web/). OpenCL, MPI, HDF5,
# the program, the tests and the installs are off; GLFW and WebGL2 come from emscripten, the
# header-only cglm and stb from Debian's packages (HERD_WEB_INCLUDE: a folder holding links to
# them, made by scripts/web.sh), jansson from Debian's source package built for the web.
set(HERD_WEB_INCLUDE "" CACHE PATH "A folder with cglm/ and stb/ (scripts/web.sh makes it)")
herd_embed_shaders(web_shaders)
# The renderer as the viewer builds it, less what a page has no use for (PNG files, ffmpeg):
# the same sources, their version line chosen for GLSL ES 3.00 (src/render/shader.c).
add_library(herd_render_web STATIC src/render/window.c src/render/renderer.c src/render/overlays.c
            src/render/camera.c src/render/share.c src/render/plot.c src/render/shader.c ${web_shaders})
target_compile_definitions(herd_render_web PUBLIC HERD_LAYER_RENDER HERD_WITH_GL)
target_include_directories(herd_render_web PUBLIC "${HERD_WEB_INCLUDE}")
target_link_libraries(herd_render_web PUBLIC herd herd_util_api)

# herd view's plain logic over the public API (selecting and steering an agent by hand,
# inspecting one, a parameter's step): the program's own sources, not a copy.
add_executable(herd_web web/main.c src/cli/inspect.c src/cli/steering_ui.c src/cli/param_edit.c)
target_link_libraries(herd_web PRIVATE herd_render_web herd)
set_target_properties(herd_web PROPERTIES OUTPUT_NAME herd SUFFIX ".js")
target_link_options(herd_web PRIVATE -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
                    -sALLOW_MEMORY_GROWTH=1 -sMODULARIZE=1 -sEXPORT_NAME=createHerd
                    "-sEXPORTED_FUNCTIONS=['_main','_malloc','_free']"
                    "-sEXPORTED_RUNTIME_METHODS=['ccall','cwrap','UTF8ToString','FS']")
