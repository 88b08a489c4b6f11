# Writes what a kernel declares as its typed arguments (bindings_layout/weft_args.h): the
# `weft_signature_arg TYPE [BINDING] NAME ;` entries of a WEFT_DESCRIBE_ARGS preprocessing pass.
# Run by weft_add_shaders(); the engine parses the entries (weft::parse_signature).
string(REPLACE "|" ";" includes "${INCLUDES}")
execute_process(COMMAND "${GLSLANG}" -E -DWEFT_DESCRIBE_ARGS=1 ${includes} "${SOURCE}"
                OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: preprocessing for its arguments failed:\n${text}${err}")
endif()
# `;` separates CMake list items: swap it out before matching.
string(REPLACE ";" "@" text "${text}")
string(REGEX MATCHALL "weft_signature_arg[^@]*@" entries "${text}")
string(REPLACE "@" ";" described "${entries}")
string(REPLACE ";;" ";" described "${described}")
file(WRITE "${OUT}" "${described}")
