// The token VM's front end: UDPL prompt files (parse, lint), the flow builder and flow files
// (UDPL -> compiled workflow), the tokenizers (byte-level, and BPE from a tokenizer.json) and
// token scripts (scripted model text).
// Code outside this folder includes only this.
#pragma once

#include "model_tokenizer.h"
#include "byte_tokenizer.h"
#include "flow.h"
#include "flow_file.h"
#include "token_script.h"
#include "udpl.h"
