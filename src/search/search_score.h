/*-------------------------------------------------------------------------
 * src/search/search_score.h
 *	  How a function score query's functions make a row's score, as SQL
 *	  (search_score.c): the functions' values, how they combine with one
 *	  another and with the query's score.  search_query.c reads the request
 *	  and passes each piece as SQL (values as parameters).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_SCORE_H
#define OTS_SEARCH_SCORE_H

#include "postgres.h"

/* one function of a functions_score_query, as SQL over a row */
typedef struct ScoreFunction
{
	const char *applies;		/* its filter's condition, or NULL: every row */
	const char *value;			/* its value (float8; null: it does not apply), or NULL: its weight alone */
	const char *weight;			/* a float8 */
} ScoreFunction;

/*
 * The names of the request's enumerations, Tablestore's (each also without
 * its prefix: "SUM" for "FSM_SUM"); score_name_find gives the place of
 * name in names, -1 when it is none
 */
extern const char *const score_modes[];			/* FSM_AVG, FSM_MAX, FSM_SUM, FSM_MIN, FSM_MULTIPLY, FSM_FIRST */
extern const char *const score_combine_modes[]; /* FCM_MULTIPLY, FCM_AVG, FCM_MAX, FCM_SUM, FCM_MIN, FCM_REPLACE */
extern const char *const score_modifiers[];		/* FM_NONE, FM_LOG, ..., FM_RECIPROCAL */
extern const char *const score_decays[];		/* GAUSS, EXP, LINEAR */
extern const char *const score_multi_value_modes[];	/* MVM_MAX, MVM_MIN, MVM_SUM, MVM_AVG */
extern int	score_name_find(const char *const *names, const char *name);

/* the functions' score: by score_modes[mode], 1 where none applies */
extern char *score_functions_sql(const ScoreFunction *fns, int n, int mode);

/* a row's score: query_score and functions_score (capped at max_score, or NULL) by score_combine_modes[mode] */
extern char *score_combine_sql(const char *query_score, const char *functions_score, const char *max_score, int mode);

/* a field_value_factor's value: score_modifiers[modifier] of factor times x (null where undefined) */
extern char *score_factor_sql(const char *x, const char *factor, int modifier);

/* a decay function's value at distance: score_decays[decay_function] with scale, offset and decay */
extern char *score_decay_sql(const char *distance, int decay_function, const char *scale, const char *offset,
							 const char *decay);

/* the distance of values (an array) from an origin (SQL of e), by score_multi_value_modes[mode] */
extern char *score_distance_sql(const char *values, const char *distance_of_e, int mode);

#endif							/* OTS_SEARCH_SCORE_H */
