## The kernel of gpuarr.characterize.sizeof: one thread writes sizeof of a
## C type (PyCUDA's write_size kernel).
##
## Variables (all required):
##   preamble   user source put first (the type's definition, includes)
##   type_name  the C type whose size is asked
${preamble}
extern "C" __global__ void write_size(unsigned long long *output)
{
    *output = (unsigned long long) sizeof(${type_name});
}
