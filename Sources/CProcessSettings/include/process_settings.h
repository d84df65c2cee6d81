#ifndef ALLSPARK_PROCESS_SETTINGS_H
#define ALLSPARK_PROCESS_SETTINGS_H

/* Turns transparent huge pages off for this process and the programs it starts
 * (prctl PR_SET_THP_DISABLE). Returns 0 on success and -1 (errno set) otherwise. */
int allspark_disable_transparent_huge_pages(void);

#endif
