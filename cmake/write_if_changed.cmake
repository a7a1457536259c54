# herd_write_if_changed(PATH TEXT): writes TEXT to PATH only when it differs from what is there,
# so that a generated file that did not change rebuilds nothing. For the -P scripts that
# generate sources (commit.cmake, exports.cmake).
function(herd_write_if_changed path text)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
