# Warnings for everything we compile; sanitizer and CPU-tuning switches.
add_library(bloomseq_warnings INTERFACE)
target_compile_options(bloomseq_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wno-unknown-pragmas>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${BLOOMSEQ_WERROR}>>:-Werror>)

if(BLOOMSEQ_NATIVE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()

if(BLOOMSEQ_SANITIZE STREQUAL "address")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined> $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>)
  add_link_options(-fsanitize=address,undefined)
elseif(BLOOMSEQ_SANITIZE STREQUAL "thread")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=thread>)
  add_link_options(-fsanitize=thread)
elseif(BLOOMSEQ_SANITIZE)
  message(FATAL_ERROR "BLOOMSEQ_SANITIZE must be empty, address or thread")
endif()

if(BLOOMSEQ_FUZZ)
  # Coverage instrumentation for everything, so libFuzzer sees into the library, not just the target files.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
