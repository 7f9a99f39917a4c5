/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * validate_meta.c - meta (categories, marker schemas, required members) and libs
 * (the validator; see validate.c and pc_vstate.h).
 */
#include "json/pc_vstate.h"

/* --- meta --- */

static const char *const colors[] = {
	"transparent", "purple", "green", "orange", "yellow",	"lightblue", "blue",
	"brown",       "magenta", "red",  "lightred", "darkgrey", "grey",
};
/* Known to the front-end's renderer (src/utils/colors.ts) but not to the format's type. */
static const char *const color_aliases[] = { "gray", "darkgray", "lightgreen" };

static int in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

int pc_category_color_known(const char *color)
{
	return in_list(color, colors, PC_ARRAY_SIZE(colors)) ||
	       in_list(color, color_aliases, PC_ARRAY_SIZE(color_aliases));
}

/* A color the renderer knows but the format does not: once per color and file. */
static void warn_color(struct vstate *v, const char *color)
{
	unsigned k;

	for (k = 0; k < PC_ARRAY_SIZE(color_aliases); k++)
		if (strcmp(color, color_aliases[k]) == 0)
			break;
	if (v->colors_warned & (1u << k))
		return;
	v->colors_warned |= 1u << k;
	v_problem(v, W_COLOR,
		"color '%s' is not in the format's list (the front-end draws it anyway; reported once)",
		color);
}

static int check_categories(struct vstate *v, struct profile *pr, const cJSON *cats, int gecko)
{
	size_t old = v_path_push_key(v, "categories");
	const cJSON *c;
	uint32_t n, i = 0;
	int grey = 0;

	if (!cats) {
		if (gecko) {
			v_problem(v, K_MISSING, "missing");
		} else {
			/* the front-end uses getDefaultCategories(): 8 entries, one subcategory each */
			pr->ncat = 8;
			pr->subcats = pc_alloc(v->ctx, 8 * sizeof(uint32_t));
			if (!pr->subcats)
				return PROFCONV_ERR_NOMEM;
			for (i = 0; i < 8; i++)
				pr->subcats[i] = 1;
			pr->sc.lim[T_CATEGORIES] = 8;
		}
		v_path_pop(v, old);
		return 0;
	}
	if (!cJSON_IsArray(cats)) {
		v_problem(v, K_TYPE, "expected an array");
		v_path_pop(v, old);
		return 0;
	}
	n = (uint32_t)cJSON_GetArraySize(cats);
	pr->subcats = pc_calloc(v->ctx, n ? n : 1, sizeof(uint32_t));
	if (!pr->subcats)
		return PROFCONV_ERR_NOMEM;
	pr->ncat = n;
	pr->sc.lim[T_CATEGORIES] = n;
	cJSON_ArrayForEach(c, cats)
	{
		size_t o2 = v_path_push_idx(v, i);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *color = cJSON_GetObjectItemCaseSensitive(c, "color");
		const cJSON *subs = cJSON_GetObjectItemCaseSensitive(c, "subcategories");

		if (!cJSON_IsObject(c)) {
			v_problem(v, K_CATEGORY, "expected an object");
		} else {
			if (!cJSON_IsString(name))
				v_problem(v, K_CATEGORY, "name: %s", name ? "not a string" : "missing");
			if (!cJSON_IsString(color)) {
				v_problem(v, K_CATEGORY, "color: %s", color ? "not a string" : "missing");
			} else if (strcmp(color->valuestring, "grey") == 0) {
				grey = 1;
			} else if (in_list(color->valuestring, color_aliases,
					   PC_ARRAY_SIZE(color_aliases))) {
				warn_color(v, color->valuestring);
			} else if (!in_list(color->valuestring, colors, PC_ARRAY_SIZE(colors))) {
				v_problem(v, K_CATEGORY,
					"color '%.40s' is not one of transparent, purple, green, orange, yellow, lightblue, blue, brown, magenta, red, lightred, darkgrey, grey",
					color->valuestring);
			}
			if (!cJSON_IsArray(subs)) {
				v_problem(v, K_CATEGORY, "subcategories: %s",
					subs ? "not an array" : "missing");
			} else if (cJSON_GetArraySize(subs) == 0) {
				v_problem(v, K_CATEGORY,
					"subcategories is empty (needs at least 'Other')");
			} else {
				const cJSON *sub;

				pr->subcats[i] = (uint32_t)cJSON_GetArraySize(subs);
				cJSON_ArrayForEach(sub, subs)
				{
					if (!cJSON_IsString(sub)) {
						v_problem(v, K_CATEGORY,
							"subcategories: every entry must be a string");
						break;
					}
				}
			}
		}
		v_path_pop(v, o2);
		i++;
	}
	if (!grey)
		v_problem(v, W_NO_GREY,
			"no category has color 'grey' (the front-end's default category becomes -1)");
	v_path_pop(v, old);
	return 0;
}

static void require_member(struct vstate *v, const cJSON *meta, const char *key, int want_array,
			   enum kind k, const char *why)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(meta, key);
	size_t old = v_path_push_key(v, key);

	if (!it)
		v_problem(v, k, "missing%s", why);
	else if (want_array && !cJSON_IsArray(it))
		v_problem(v, K_TYPE, "expected an array");
	else if (!want_array && !cJSON_IsNumber(it))
		v_problem(v, K_TYPE, "expected a number");
	else if (!want_array && !pc_jnum_finite(it->valuedouble))
		v_problem(v, K_TYPE, "expected a finite number; this one reads as infinity");
	v_path_pop(v, old);
}

static void check_marker_schema(struct vstate *v, const cJSON *ms)
{
	size_t old = v_path_push_key(v, "markerSchema");
	const cJSON *e;
	uint32_t i = 0;

	if (cJSON_IsArray(ms)) {
		cJSON_ArrayForEach(e, ms)
		{
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");

			if (!cJSON_IsString(name)) {
				size_t o2 = v_path_push_idx(v, i);

				v_problem(v, K_VALUE, "marker schema without a string name");
				v_path_pop(v, o2);
			}
			i++;
		}
	}
	v_path_pop(v, old);
}

int v_parse_meta(struct vstate *v, struct profile *pr)
{
	const cJSON *ppv, *ver;
	const char *raw;
	cJSON *meta;
	size_t len;
	int err;

	if (pr->meta_seen) {
		v_problem(v, K_VALUE, "duplicate meta");
		return pc_jpull_skip_value(v->p);
	}
	pr->meta_seen = 1;
	if (v_expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = pc_jpull_capture_value(v->p, &raw, &len, META_MAX);
	if (err)
		return err;
	v_note_surrogates(v, (char *)raw, len, "meta");
	meta = cJSON_ParseWithLength(raw, len);
	if (!meta) {
		v_problem(v, K_VALUE, "could not be read (nested too deeply for cJSON, or out of memory)");
		return 0;
	}
	ppv = cJSON_GetObjectItemCaseSensitive(meta, "preprocessedProfileVersion");
	ver = cJSON_GetObjectItemCaseSensitive(meta, "version");
	if (cJSON_IsNumber(ver)) {
		pr->has_version = 1;
		pr->version = ver->valuedouble;
	}
	if (cJSON_IsNumber(ppv)) {
		size_t old = v_path_push_key(v, "preprocessedProfileVersion");

		pr->fmt = F_PROCESSED;
		pr->has_pver = 1;
		pr->pver = ppv->valuedouble;
		if (pr->pver > PROCESSED_VERSION)
			v_problem(v, W_VERSION,
				"%lld is newer than %d, the newest the front-end reads (it refuses the file)",
				(long long)pr->pver, PROCESSED_VERSION);
		v_path_pop(v, old);
		require_member(v, meta, "interval", 0, K_MISSING, " (the front-end fails without it)");
		require_member(v, meta, "markerSchema", 1, K_MISSING,
			       " (the front-end fails without it)");
		require_member(v, meta, "startTime", 0, W_OPTIONAL, "");
		err = check_categories(v, pr, cJSON_GetObjectItemCaseSensitive(meta, "categories"), 0);
	} else if (cJSON_IsNumber(ver)) {
		size_t old = v_path_push_key(v, "version");

		pr->fmt = F_GECKO;
		if (pr->version > GECKO_VERSION)
			v_problem(v, W_VERSION,
				"%lld is newer than %d, the newest the front-end reads (it refuses the file)",
				(long long)pr->version, GECKO_VERSION);
		v_path_pop(v, old);
		require_member(v, meta, "startTime", 0, K_MISSING, "");
		require_member(v, meta, "markerSchema", 1, K_MISSING, "");
		if (!pr->is_sub)
			require_member(v, meta, "interval", 0, K_MISSING, "");
		err = check_categories(v, pr, cJSON_GetObjectItemCaseSensitive(meta, "categories"), 1);
	} else {
		v_problem(v, K_MISSING,
			"has neither a numeric preprocessedProfileVersion (processed) nor a numeric version (Gecko)");
	}
	check_marker_schema(v, cJSON_GetObjectItemCaseSensitive(meta, "markerSchema"));
	cJSON_Delete(meta);
	return err;
}

/* --- libs --- */

int v_parse_libs(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	uint32_t i;
	int err;

	if (pr->libs_seen) {
		v_problem(v, K_VALUE, "duplicate libs");
		return pc_jpull_skip_value(v->p);
	}
	pr->libs_seen = 1;
	pr->libs_path = pc_strdup(v->ctx, v->path);
	if (!pr->libs_path)
		return PROFCONV_ERR_NOMEM;
	if (v_expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	for (i = 0; !err; i++) {
		const cJSON *it;
		struct libinfo *li;
		const char *raw;
		cJSON *j;
		size_t len;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		err = pc_jpull_capture_value(v->p, &raw, &len, LIB_MAX);
		if (err)
			break;
		if (i >= pr->libcap) {
			void *p = pr->libs;

			err = pc_grow(v->ctx, &p, sizeof(*pr->libs), &pr->libcap, (size_t)i + 1);
			if (err)
				break;
			pr->libs = p;
		}
		li = &pr->libs[i];
		memset(li, 0, sizeof(*li));
		{
			char base[32];

			pc_snprintf(base, sizeof(base), "libs[%u]", i);
			v_note_surrogates(v, (char *)raw, len, base);
		}
		j = cJSON_ParseWithLength(raw, len);
		if (cJSON_IsObject(j)) {
			li->flags |= LIB_OBJ;
			it = cJSON_GetObjectItemCaseSensitive(j, "start");
			if (cJSON_IsNumber(it)) {
				li->flags |= LIB_START;
				li->start = it->valuedouble;
			}
			it = cJSON_GetObjectItemCaseSensitive(j, "end");
			if (cJSON_IsNumber(it)) {
				li->flags |= LIB_END;
				li->end = it->valuedouble;
			}
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "offset")))
				li->flags |= LIB_OFFSET;
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "name")))
				li->flags |= LIB_NAME;
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "debugName")))
				li->flags |= LIB_DEBUGNAME;
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "breakpadId")))
				li->flags |= LIB_BREAKPADID;
		}
		cJSON_Delete(j);
	}
	if (!err)
		err = pc_jpull_next(v->p, &t); /* the ']' */
	pr->nlibs = i;
	pr->sc.lim[T_LIBS] = i;
	return err;
}

void v_check_libs(struct vstate *v, const struct profile *pr, enum fmt f)
{
	static const struct {
		unsigned flag;
		const char *name;
	} strs[] = {
		{ LIB_NAME, "name" },
		{ LIB_DEBUGNAME, "debugName" },
		{ LIB_BREAKPADID, "breakpadId" },
	};
	char path[PATH_MAX_LEN + 32];
	uint32_t i, k, prev = UINT32_MAX;

	for (i = 0; i < pr->nlibs; i++) {
		const struct libinfo *li = &pr->libs[i];

		pc_snprintf(path, sizeof(path), "%s[%u]", pr->libs_path, i);
		if (!(li->flags & LIB_OBJ)) {
			v_problem_at(v, K_TYPE, path, "expected an object");
			continue;
		}
		for (k = 0; k < PC_ARRAY_SIZE(strs); k++)
			if (!(li->flags & strs[k].flag))
				v_problem_at(v, K_MISSING, path, "'%s' is missing or not a string",
					   strs[k].name);
		if (f != F_GECKO)
			continue;
		if (!(li->flags & LIB_START))
			v_problem_at(v, K_MISSING, path, "'start' is missing or not a number");
		if (!(li->flags & LIB_END))
			v_problem_at(v, K_MISSING, path, "'end' is missing or not a number");
		if (!(li->flags & LIB_OFFSET))
			v_problem_at(v, K_MISSING, path,
				   "'offset' is missing or not a number (the front-end fails: cannot convert undefined to a BigInt)");
		if ((li->flags & (LIB_START | LIB_END)) != (LIB_START | LIB_END))
			continue;
		if (li->end < li->start)
			v_problem_at(v, K_LIBS, path, "end %#llx is before start %#llx",
				   (unsigned long long)li->end, (unsigned long long)li->start);
		if (prev != UINT32_MAX) {
			const struct libinfo *pl = &pr->libs[prev];

			if (li->start < pl->start)
				v_problem_at(v, K_LIBS, path,
					   "start %#llx is before libs[%u]'s %#llx (libs must be sorted by start)",
					   (unsigned long long)li->start, prev,
					   (unsigned long long)pl->start);
			else if (li->start < pl->end)
				v_problem_at(v, K_LIBS, path,
					   "[%#llx, %#llx) overlaps libs[%u] [%#llx, %#llx)",
					   (unsigned long long)li->start, (unsigned long long)li->end,
					   prev, (unsigned long long)pl->start,
					   (unsigned long long)pl->end);
		}
		prev = i;
	}
}
