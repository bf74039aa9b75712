## The look-back scan's pieces shared by its two kernels (scan.cu.mako's
## block-per-tile kernel and scan_pipelined.cu.mako): the scan of a tile in
## registers and the results' stores.  Defs only; they read the variables
## scan.cu.mako is rendered with and its GA_* macros.
<%def name="local_scan()">\
    // ---- segment heads (row starts), one bit per element
    unsigned int head[GA_R];
#pragma unroll
    for (int r = 0; r < GA_R; ++r) head[r] = 0u;
    unsigned long long bmod = 0ull;
    if (SEG) {
        bmod = base % row_len;
#pragma unroll
        for (int r = 0; r < GA_R; ++r) {
            const unsigned int o = (unsigned int)(woff + r * (32 * GA_V) + lane * GA_V);
            unsigned long long p;
            if (row_len >= GA_TILE) {
                p = bmod + o;
                if (p >= row_len) p -= row_len;
            } else {
                p = ((unsigned int)bmod + o) % (unsigned int)row_len;
            }
#pragma unroll
            for (int e = 0; e < GA_V; ++e) {
                if (p == 0ull) head[r] |= 1u << e;
                if (++p == row_len) p = 0ull;
            }
        }
    }

    // ---- thread-local then warp scans of each row; carry across rows
    ga_acc_t wq[GA_R];          // this lane's prefix within the warp segment
    unsigned int wq_have = 0u;  // bit r: wq[r] exists
    unsigned int wq_flag = 0u;  // bit r: a head lies within wq[r]'s range
    ga_acc_t carry;
    bool carry_f = false;
#pragma unroll
    for (int r = 0; r < GA_R; ++r) {
#pragma unroll
        for (int e = 1; e < GA_V; ++e) {
            if (!(SEG && ((head[r] >> e) & 1u))) x[r][e] = ga_scan_op(x[r][e - 1], x[r][e]);
        }
        unsigned int hm = 0u;
        int start = 0;
        if (SEG) {
            hm = __ballot_sync(GA_FULL, head[r] != 0u);
            const unsigned int le = hm & (GA_FULL >> (31 - lane));
            start = le ? 31 - __clz(le) : 0;
        }
        const ga_acc_t incl = ga_warp_scan(x[r][GA_V - 1], lane, start);
        const ga_acc_t lex = ga_shfl_up(incl, 1u);
        const ga_acc_t rtot = ga_shfl_idx(incl, 31);
        const bool lexf = SEG && (hm & ((1u << lane) - 1u)) != 0u;
        const bool rtf = SEG && hm != 0u;
        if (lane > 0) {
            wq[r] = (r > 0 && !lexf) ? ga_scan_op(carry, lex) : lex;
            wq_have |= 1u << r;
            if (lexf || (r > 0 && carry_f)) wq_flag |= 1u << r;
        } else if (r > 0) {
            wq[r] = carry;
            wq_have |= 1u << r;
            if (carry_f) wq_flag |= 1u << r;
        }
        carry = (r > 0 && !rtf) ? ga_scan_op(carry, rtot) : rtot;
        carry_f = carry_f || rtf;
    }
</%def>\
<%def name="results_and_stores(vector)">\
    // ---- results and stores
#pragma unroll
    for (int r = 0; r < GA_R; ++r) {
        ga_acc_t q;
        bool q_have = true;
        if ((wq_have >> r) & 1u) {
            q = (bp_have && !((wq_flag >> r) & 1u)) ? ga_scan_op(bp, wq[r]) : wq[r];
        } else if (bp_have) {
            q = bp;
        } else {
            q_have = false;
        }
        ga_out_t res[GA_V];
        bool open = q_have;
% if exclusive:
        ga_acc_t prev = q;
        bool prev_have = q_have;
% endif
#pragma unroll
        for (int e = 0; e < GA_V; ++e) {
            const bool h = SEG && ((head[r] >> e) & 1u);
            if (h) open = false;
            const ga_acc_t v = open ? ga_scan_op(q, x[r][e]) : x[r][e];
% if exclusive:
            res[e] = ga_scan_store((h || !prev_have) ? ga_scan_neutral() : prev);
            prev = v;
            prev_have = true;
% else:
            res[e] = ga_scan_store(v);
% endif
        }
        const int o = woff + r * (32 * GA_V) + lane * GA_V;
        if (full) {
% if vector:
            ga_vec<ga_out_t, GA_V> w;
#pragma unroll
            for (int e = 0; e < GA_V; ++e) w.v[e] = res[e];
            *reinterpret_cast<ga_vec<ga_out_t, GA_V> *>(dst + o) = w;
% else:
#pragma unroll
            for (int e = 0; e < GA_V; ++e) dst[o + e] = res[e];
% endif
        } else {
#pragma unroll
            for (int e = 0; e < GA_V; ++e) {
                if ((unsigned long long)(o + e) < rem) dst[o + e] = res[e];
            }
        }
    }
</%def>\
