# Turns a text file into a C source defining `const char NAME[]` (NUL-terminated).
# Run as: cmake -DINPUT=file -DOUTPUT=file.c -DNAME=symbol -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n  " bytes "${bytes}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT} by cmake/embed.cmake; do not edit. */\nconst char ${NAME}[] = {\n  ${bytes}0x00};\n")
