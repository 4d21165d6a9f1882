#include <stdio.h>
#include "srlab/rounding.h"
int main(void) { printf("%s\n", srl_version()); return 0; }
