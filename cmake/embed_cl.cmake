# Embeds an OpenCL source with its #include "..." files inlined (each once), so the program
# builds from one string with no include path. An include is found relative to the file
# that includes it, as a C compiler does. Run as:
#   cmake -DINPUT=kernels/herd.cl -DOUTPUT=out.c -DNAME=symbol -P embed_cl.cmake
# The text is handled as whole strings, never as CMake lists, so semicolons are safe.
cmake_policy(SET CMP0057 NEW)

function(inline_file path out_var)
  file(READ "${path}" text)
  get_filename_component(dir "${path}" DIRECTORY)
  string(REGEX MATCHALL "#include \"[^\"]+\"" includes "${text}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" name "${line}")
    get_filename_component(full "${dir}/${name}" ABSOLUTE)
    get_property(seen GLOBAL PROPERTY HERD_EMBED_SEEN)
    set(inner "")
    if(NOT full IN_LIST seen)
      set_property(GLOBAL APPEND PROPERTY HERD_EMBED_SEEN "${full}")
      inline_file("${full}" inner)
    endif()
    string(REPLACE "${line}" "${inner}" text "${text}")
  endforeach()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

inline_file("${INPUT}" source)
file(WRITE "${OUTPUT}.cl" "${source}")
file(READ "${OUTPUT}.cl" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n  " bytes "${bytes}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT} by cmake/embed_cl.cmake; do not edit. */\nconst char ${NAME}[] = {\n  ${bytes}0x00};\n")
