/* SPDX-License-Identifier: Apache-2.0 */
/* Per-call options: the out-of-range modes' names and the checks a call's
 * options get (docs/design.md, "Out-of-range modes"). */
#include "op.h"

#include <string.h>

static const char *const oob_words[] = {
#define CLG_OOB_WORD_(name, value, word) [value] = word,
    CLG_OOB_TABLE(CLG_OOB_WORD_)
#undef CLG_OOB_WORD_
};
#define OOB_COUNT (sizeof oob_words / sizeof oob_words[0])

const char *clg_oob_mode_name(clg_oob_mode mode)
{
    return (unsigned)mode < OOB_COUNT && oob_words[mode] ? oob_words[mode]
                                                         : "unknown";
}

clg_status clg_oob_mode_parse(const char *word, clg_oob_mode *mode)
{
    if (!word || !mode)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !word ? "word" : "mode");
    for (size_t i = 0; i < OOB_COUNT; i++)
        if (oob_words[i] && strcmp(word, oob_words[i]) == 0) {
            *mode = (clg_oob_mode)i;
            return CLG_STATUS_OK;
        }
    return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                    "out-of-range mode \"%s\" is not raise, wrap, clip or "
                    "fill",
                    word);
}

clg_status clg_validate_options(clg_context *ctx,
                                const clg_call_options *options,
                                clg_problem *p)
{
    clg_oob_mode mode = options ? options->oob : CLG_OOB_RAISE;
    if ((unsigned)mode >= OOB_COUNT || !oob_words[mode])
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "options->oob = %d is not a mode of CLG_OOB_TABLE "
                        "(raise 0, wrap 1, clip 2, fill 3)",
                        (int)mode);
    p->oob = mode;
    /* Raise finds this case when it checks the values and names the first
     * one; the other modes check none, so it is refused here. */
    if (mode != CLG_OOB_RAISE && p->axis_size == 0 && p->out_count > 0 &&
        (p->components > 1 || clg_op_desc_of(p->op)->tuples)) {
        size_t dim = p->axis;
        while (p->data_shape[dim] != 0)
            dim++; /* a tuple's dims: axis_size is the least of them */
        return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                        "data dim %zu has size 0, so no index tuple is "
                        "valid: %s cannot resolve %lld index value%s under "
                        "mode %s",
                        dim, clg_op_name(p->op), (long long)p->index_count,
                        p->index_count == 1 ? "" : "s",
                        clg_oob_mode_name(mode));
    }
    if (mode != CLG_OOB_RAISE && p->axis_size == 0 && p->out_count > 0)
        return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                        "axis %zu of data has size 0, so no index is valid: "
                        "%s cannot resolve %lld index value%s under mode %s",
                        p->axis, clg_op_name(p->op), (long long)p->index_count,
                        p->index_count == 1 ? "" : "s",
                        clg_oob_mode_name(mode));
    return CLG_STATUS_OK;
}
