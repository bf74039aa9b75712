## The C of a fused program (gpuarr/kernels/program.py): one constant per
## step, ga_v<j> for step j, in the compute type of the step's dtype.
## The elementwise and reduction templates call body() inside their
## per-element function, after loading the inputs.
##
## body(program, names, prefix)
##   program   a gpuarr.kernels.program.Program
##   names     C expression of each input k (already a compute value of
##             the dtype of the program's "in" steps reading it)
##   prefix    the steps' variable prefix ("ga_v": ga_v0, ga_v1, ...)
## value(j, prefix)  the variable of step j
<%!
    import struct
    import numpy as np
    from gpuarr._dtypes import reg_ctype
    from gpuarr.kernels.ops import get_op, op_expression
    from gpuarr.kernels.program import constant_value

    def real_literal(v, dt):
        """A real or integer value of dtype ``dt``'s compute type, exactly."""
        if dt.kind == "b":
            return "true" if v else "false"
        if dt.kind in "iu":
            n = int(v)
            if dt.kind == "i" and dt.itemsize == 8 and n == -2 ** 63:
                return "(-9223372036854775807LL - 1)"
            suffix = "ULL" if dt.kind == "u" else "LL"
            return "((%s)%d%s)" % (reg_ctype(dt), n, suffix)
        if dt.itemsize <= 4:
            bits = struct.unpack("<I", struct.pack("<f", float(v)))[0]
            return "__int_as_float(0x%08x)" % bits
        bits = struct.unpack("<Q", struct.pack("<d", float(v)))[0]
        return "__longlong_as_double(0x%016xULL)" % bits

    def literal(raw, dt):
        v = constant_value(raw, dt)
        if dt.kind == "c":
            part = np.dtype("f4") if dt.itemsize == 8 else np.dtype("f8")
            return "%s(%s, %s)" % (reg_ctype(dt), real_literal(v.real, part),
                                   real_literal(v.imag, part))
        return real_literal(v, dt)

    def is_half(dt):
        return dt.kind == "f" and dt.itemsize == 2
%>\
<%namespace name="common" file="common.cu.mako"/>\
<%def name="value(j, prefix)" buffered="True" filter="trim">
${prefix}${j}
</%def>\
<%def name="rounded(expr, dt)" buffered="True" filter="trim">
% if is_half(dt):
ga_hround((float)(${expr}))
% else:
${expr}
% endif
</%def>\
<%def name="body(program, names, prefix)">
% for j, st in enumerate(program.steps):
<% dt = st[1] %>\
% if st[0] == "in":
    const ${reg_ctype(dt)} ${prefix}${j} = ${names[st[2]]};
% elif st[0] == "const":
    const ${reg_ctype(dt)} ${prefix}${j} = ${literal(st[2], dt)};
% elif st[0] == "cast":
    const ${reg_ctype(dt)} ${prefix}${j} = ${common.convert(prefix + str(st[2]), program.steps[st[2]][1], dt)};
% else:
<%
    name, loop_in, args, out = st[2], st[3], st[4], st[5]
    conv = [common.convert(prefix + str(a), program.steps[a][1], ldt)
            for a, ldt in zip(args, loop_in)]
%>\
    const ${reg_ctype(dt)} ${prefix}${j} = ${rounded(op_expression(get_op(name), loop_in, conv, out), dt)};
% endif
    (void)${prefix}${j};
% endfor
</%def>\
