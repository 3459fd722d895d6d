/* SPDX-License-Identifier: Apache-2.0 */
/* The ICD loader's functions for the shims (cl_next.h). */
#define _GNU_SOURCE
#include "cl_next.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *cl_next(const char *who, const char *name)
{
    static void *lib;
    if (!lib)
        lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    void *f = lib ? dlsym(lib, name) : NULL;
    if (!f) {
        fprintf(stderr, "%s: %s not found in the OpenCL library\n", who, name);
        abort();
    }
    return f;
}
