// Lets callgrind count one section of a run: started with `valgrind --tool=callgrind --instr-atstart=no`,
// it counts only between `callgrind_section_begin` and `callgrind_section_end`, on every thread.
// Outside valgrind both cost a few instructions and do nothing.
#ifndef CALLGRIND_CONTROL_H
#define CALLGRIND_CONTROL_H

void callgrind_section_begin(void);
void callgrind_section_end(void);

#endif
