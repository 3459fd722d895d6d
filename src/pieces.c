/* SPDX-License-Identifier: Apache-2.0 */
/* Cutting a call into pieces whose buffers each fit one device allocation
 * (docs/design.md, "Large tensors"). */
#include "op.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

void clg_pieces_cut(const clg_problem *p, const clg_plan *plan,
                    uint64_t max_bytes, clg_pieces *pc)
{
    int64_t units = (int64_t)(max_bytes / plan->unit);
    /* Indices per buffer: in index positions (of `components` values). */
    int64_t idx_cap = (int64_t)(max_bytes / (p->index_size * p->components));
    int64_t row = plan->n * plan->inner;
    clg_index_window win = clg_op_desc_of(p->op)->index_window;
    int positions = win == CLG_WINDOW_POSITIONS || win == CLG_WINDOW_TUPLES;
    int tuples = win == CLG_WINDOW_TUPLES;
    if (units < 1)
        units = 1;
    if (idx_cap < 1)
        idx_cap = 1;
    pc->units = units;
    /* Indices in output order share output positions: cap both alike. */
    int64_t out_cap = positions ? units : (units < idx_cap ? units : idx_cap);
    if (row <= out_cap && (!positions || plan->n <= idx_cap)) {
        pc->kind = CLG_PIECE_ROWS;
        pc->per = out_cap / row;
        /* Tuples: each row reads its own n tuples. */
        if (tuples && plan->n > 0 && pc->per > idx_cap / plan->n)
            pc->per = idx_cap / plan->n;
        if (pc->per < 1)
            pc->per = 1;
        if (pc->per > plan->outer)
            pc->per = plan->outer;
        pc->count = ceil_div(plan->outer, pc->per);
    } else if (plan->inner <= out_cap) {
        pc->kind = CLG_PIECE_INDICES;
        pc->per = out_cap / plan->inner;
        if (positions && pc->per > idx_cap)
            pc->per = idx_cap;
        pc->count = plan->outer * ceil_div(plan->n, pc->per);
    } else {
        pc->kind = CLG_PIECE_COLUMNS;
        pc->per = out_cap;
        pc->count = plan->outer * plan->n * ceil_div(plan->inner, pc->per);
    }
}

/* The box of piece k. */
static clg_box piece_box(const clg_plan *plan, const clg_pieces *pc, int64_t k)
{
    clg_box b = {0, plan->outer, 0, plan->n, 0, plan->inner};
    if (pc->kind == CLG_PIECE_ROWS) {
        b.o0 = k * pc->per;
        b.o1 = b.o0 + pc->per < plan->outer ? b.o0 + pc->per : plan->outer;
    } else if (pc->kind == CLG_PIECE_INDICES) {
        int64_t per_row = ceil_div(plan->n, pc->per);
        b.o0 = k / per_row;
        b.o1 = b.o0 + 1;
        b.j0 = (k % per_row) * pc->per;
        b.j1 = b.j0 + pc->per < plan->n ? b.j0 + pc->per : plan->n;
    } else {
        int64_t per_block = ceil_div(plan->inner, pc->per);
        int64_t t = k / per_block;
        b.o0 = t / plan->n;
        b.o1 = b.o0 + 1;
        b.j0 = t % plan->n;
        b.j1 = b.j0 + 1;
        b.c0 = (k % per_block) * pc->per;
        b.c1 = b.c0 + pc->per < plan->inner ? b.c0 + pc->per : plan->inner;
    }
    return b;
}

void clg_piece_at(const clg_routine *r, const clg_problem *p,
                  const clg_plan *plan, const clg_pieces *pc, int64_t k,
                  clg_box *box, clg_windows *w, int64_t *first, int64_t *end)
{
    clg_box b = piece_box(plan, pc, k);
    int64_t lo = (b.o0 * plan->n + b.j0) * plan->inner + b.c0;
    int64_t hi = ((b.o1 - 1) * plan->n + (b.j1 - 1)) * plan->inner + b.c1 - 1;
    w->out_base = lo;
    w->out_len = hi - lo + 1;
    clg_index_window win = clg_op_desc_of(p->op)->index_window;
    if (win == CLG_WINDOW_POSITIONS) {
        int64_t values = (int64_t)p->components; /* per index */
        w->index_base = b.j0 * values;
        w->index_len = (b.j1 - b.j0) * values;
    } else if (win == CLG_WINDOW_TUPLES) {
        int64_t values = (int64_t)p->components; /* per tuple */
        w->index_base = (b.o0 * plan->n + b.j0) * values;
        w->index_len = ((b.o1 - 1) * plan->n + b.j1) * values - w->index_base;
    } else {
        w->index_base = w->out_base;
        w->index_len = w->out_len;
    }
    r->footprint(plan, &b, first, end);
    *box = b;
}
