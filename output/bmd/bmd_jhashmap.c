/* bmd_jhashmap.c - iteration order of a java.util.HashMap<Integer, V> (JDK 8 .. 17).
 *
 * Badoo's decruncher writes its CLASS_DUMPs in `classes.values()` order, so a byte-exact
 * decrunch has to know where HashMap puts each class id.  This is a behavioural model of
 * java/util/HashMap.java (putVal, resize, treeifyBin and the TreeNode methods treeify,
 * putTreeVal, split, untreeify, moveRootToFront, balanceInsertion, rotateLeft/Right), written
 * from the algorithm's description, with keys known to be distinct:
 *   - hash = h ^ (h >>> 16); bin = hash & (n - 1); the table starts at 16 bins, threshold 0.75n;
 *   - a bin that holds 8 nodes when a 9th arrives is treeified, or the table doubles instead
 *     while it has fewer than 64 bins;
 *   - iteration walks the bins in order and each bin along its `next` links: insertion order
 *     for plain bins; tree bins keep the tree root first and insert a new node right after its
 *     tree parent;
 *   - on resize, bins split into lo/hi lists keeping their order; a split half of <= 6 nodes
 *     becomes a plain list, a bigger one is treeified again when the other half is non-empty.
 * Distinct Integer keys have distinct spread hashes, so the tree is ordered by signed hash. */
#include "output/bmd/bmd_codec.h"

#include <string.h>

#include "carver/base/xalloc.h"

#define NIL (-1)
#define TREEIFY_THRESHOLD 8
#define UNTREEIFY_THRESHOLD 6
#define MIN_TREEIFY_CAPACITY 64

struct jhm {
	size_t n;               /* bins */
	int32_t *tab;           /* first node of each bin */
	uint8_t *tree;          /* bin holds TreeNodes */
	int32_t *next, *prev, *parent, *left, *right;
	uint8_t *red;
	int32_t *hash;          /* spread hash, compared as a signed int */
};

static size_t bin_of(const struct jhm *m, int32_t x, size_t n)
{
	return (size_t)(uint32_t)m->hash[x] & (n - 1);
}

/* ---- red-black tree (HashMap.TreeNode) ---------------------------------------------------- */

static int32_t rotate_left(struct jhm *m, int32_t root, int32_t p)
{
	int32_t r, pp, rl;

	if (p != NIL && (r = m->right[p]) != NIL) {
		if ((rl = m->right[p] = m->left[r]) != NIL)
			m->parent[rl] = p;
		if ((pp = m->parent[r] = m->parent[p]) == NIL) {
			root = r;
			m->red[r] = 0;
		} else if (m->left[pp] == p) {
			m->left[pp] = r;
		} else {
			m->right[pp] = r;
		}
		m->left[r] = p;
		m->parent[p] = r;
	}
	return root;
}

static int32_t rotate_right(struct jhm *m, int32_t root, int32_t p)
{
	int32_t l, pp, lr;

	if (p != NIL && (l = m->left[p]) != NIL) {
		if ((lr = m->left[p] = m->right[l]) != NIL)
			m->parent[lr] = p;
		if ((pp = m->parent[l] = m->parent[p]) == NIL) {
			root = l;
			m->red[l] = 0;
		} else if (m->right[pp] == p) {
			m->right[pp] = l;
		} else {
			m->left[pp] = l;
		}
		m->right[l] = p;
		m->parent[p] = l;
	}
	return root;
}

static int32_t balance_insertion(struct jhm *m, int32_t root, int32_t x)
{
	int32_t xp, xpp, xppl, xppr;

	m->red[x] = 1;
	for (;;) {
		if ((xp = m->parent[x]) == NIL) {
			m->red[x] = 0;
			return x;
		}
		if (!m->red[xp] || (xpp = m->parent[xp]) == NIL)
			return root;
		if (xp == (xppl = m->left[xpp])) {
			if ((xppr = m->right[xpp]) != NIL && m->red[xppr]) {
				m->red[xppr] = 0;
				m->red[xp] = 0;
				m->red[xpp] = 1;
				x = xpp;
			} else {
				if (x == m->right[xp]) {
					root = rotate_left(m, root, x = xp);
					xpp = (xp = m->parent[x]) == NIL ? NIL : m->parent[xp];
				}
				if (xp != NIL) {
					m->red[xp] = 0;
					if (xpp != NIL) {
						m->red[xpp] = 1;
						root = rotate_right(m, root, xpp);
					}
				}
			}
		} else {
			if (xppl != NIL && m->red[xppl]) {
				m->red[xppl] = 0;
				m->red[xp] = 0;
				m->red[xpp] = 1;
				x = xpp;
			} else {
				if (x == m->left[xp]) {
					root = rotate_right(m, root, x = xp);
					xpp = (xp = m->parent[x]) == NIL ? NIL : m->parent[xp];
				}
				if (xp != NIL) {
					m->red[xp] = 0;
					if (xpp != NIL) {
						m->red[xpp] = 1;
						root = rotate_left(m, root, xpp);
					}
				}
			}
		}
	}
}

/* Unlinks root from its place in the bin's list and puts it first. */
static void move_root_to_front(struct jhm *m, int32_t root)
{
	size_t index = bin_of(m, root, m->n);
	int32_t first = m->tab[index], rn, rp;

	if (root == first)
		return;
	m->tab[index] = root;
	rp = m->prev[root];
	if ((rn = m->next[root]) != NIL)
		m->prev[rn] = rp;
	if (rp != NIL)
		m->next[rp] = rn;
	if (first != NIL)
		m->prev[first] = root;
	m->next[root] = first;
	m->prev[root] = NIL;
}

/* Tree position of x below root: the leaf slot its hash descends to. */
static int32_t tree_descend(const struct jhm *m, int32_t root, int32_t x, int *dir)
{
	for (int32_t p = root;;) {
		int32_t xp = p;
		*dir = m->hash[p] > m->hash[x] ? -1 : 1;
		if ((p = *dir <= 0 ? m->left[p] : m->right[p]) == NIL)
			return xp;
	}
}

/* TreeNode.treeify: builds the tree over the list starting at hd, in list order. */
static void treeify(struct jhm *m, int32_t hd)
{
	int32_t root = NIL, next;

	for (int32_t x = hd; x != NIL; x = next) {
		int dir;
		int32_t xp;
		next = m->next[x];
		m->left[x] = m->right[x] = NIL;
		if (root == NIL) {
			m->parent[x] = NIL;
			m->red[x] = 0;
			root = x;
			continue;
		}
		xp = tree_descend(m, root, x, &dir);
		m->parent[x] = xp;
		if (dir <= 0)
			m->left[xp] = x;
		else
			m->right[xp] = x;
		root = balance_insertion(m, root, x);
	}
	move_root_to_front(m, root);
}

/* TreeNode.putTreeVal for a new key: linked right after its tree parent. */
static void put_tree_val(struct jhm *m, size_t index, int32_t x)
{
	int32_t root = m->tab[index], xp, xpn;
	int dir;

	while (m->parent[root] != NIL)
		root = m->parent[root];
	xp = tree_descend(m, root, x, &dir);
	xpn = m->next[xp];
	m->next[x] = xpn;
	m->left[x] = m->right[x] = NIL;
	if (dir <= 0)
		m->left[xp] = x;
	else
		m->right[xp] = x;
	m->next[xp] = x;
	m->parent[x] = m->prev[x] = xp;
	if (xpn != NIL)
		m->prev[xpn] = x;
	move_root_to_front(m, balance_insertion(m, root, x));
}

/* ---- table ---------------------------------------------------------------------------------- */

static int jhm_bins(struct jhm *m, size_t n, struct err *e)
{
	int32_t *tab = xcalloc(n, sizeof(*tab));
	uint8_t *tree = xcalloc(n, 1);

	if (!tab || !tree) {
		xfree(tab);
		xfree(tree);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for a hash table of %zu bins", n);
	}
	memset(tab, 0xff, n * sizeof(*tab));
	xfree(m->tab);
	xfree(m->tree);
	m->tab = tab;
	m->tree = tree;
	m->n = n;
	return 0;
}

/* Splits one old bin's list into the lo (same index) and hi (index + bit) lists. */
static void split_bin(struct jhm *m, int32_t e0, size_t j, size_t bit, bool was_tree)
{
	int32_t head[2] = { NIL, NIL }, tail[2] = { NIL, NIL }, next;
	size_t count[2] = { 0, 0 };

	for (int32_t e = e0; e != NIL; e = next) {
		int h = ((size_t)(uint32_t)m->hash[e] & bit) != 0;
		next = m->next[e];
		m->next[e] = NIL;
		m->prev[e] = tail[h];
		if (tail[h] == NIL)
			head[h] = e;
		else
			m->next[tail[h]] = e;
		tail[h] = e;
		count[h]++;
	}
	for (int h = 0; h < 2; h++) {
		size_t index = j + (h ? bit : 0);
		if (head[h] == NIL)
			continue;
		m->tab[index] = head[h];
		if (!was_tree)
			continue;
		/* untreeify keeps the list order; a half that keeps all nodes keeps its tree */
		m->tree[index] = count[h] > UNTREEIFY_THRESHOLD;
		if (m->tree[index] && head[!h] != NIL)
			treeify(m, head[h]);
	}
}

static int jhm_resize(struct jhm *m, struct err *e)
{
	struct jhm old = *m;
	int rc;

	m->tab = NULL;
	m->tree = NULL;
	if ((rc = jhm_bins(m, old.n * 2, e))) {
		m->tab = old.tab;
		m->tree = old.tree;
		m->n = old.n;
		return rc;
	}
	for (size_t j = 0; j < old.n; j++) {
		int32_t e0 = old.tab[j];
		if (e0 == NIL)
			continue;
		if (m->next[e0] == NIL) {
			m->tab[bin_of(m, e0, m->n)] = e0;
			m->tree[bin_of(m, e0, m->n)] = old.tree[j];
		} else {
			split_bin(m, e0, j, old.n, old.tree[j]);
		}
	}
	xfree(old.tab);
	xfree(old.tree);
	return 0;
}

/* treeifyBin: small tables grow instead; otherwise the list becomes a tree in place. */
static int treeify_bin(struct jhm *m, size_t index, struct err *e)
{
	if (m->n < MIN_TREEIFY_CAPACITY)
		return jhm_resize(m, e);
	m->tree[index] = 1;
	treeify(m, m->tab[index]);
	return 0;
}

/* putVal for a key not yet in the map. */
static int jhm_put(struct jhm *m, int32_t x, struct err *e)
{
	size_t index = bin_of(m, x, m->n), count = 1;
	int32_t p = m->tab[index];

	m->next[x] = m->prev[x] = m->parent[x] = m->left[x] = m->right[x] = NIL;
	if (p == NIL) {
		m->tab[index] = x;
		return 0;
	}
	if (m->tree[index]) {
		put_tree_val(m, index, x);
		return 0;
	}
	for (; m->next[p] != NIL; p = m->next[p])
		count++;
	m->next[p] = x;
	m->prev[x] = p;
	return count >= TREEIFY_THRESHOLD ? treeify_bin(m, index, e) : 0;
}

int bmd_java_hashmap_order(const uint32_t *keys, size_t n, size_t *order, struct err *e)
{
	struct jhm m;
	size_t k = 0;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	if (n == 0)
		return 0;
	if (n >= INT32_MAX)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%zu classes exceed a Java HashMap", n);
	m.next = xcalloc(n, sizeof(int32_t));
	m.prev = xcalloc(n, sizeof(int32_t));
	m.parent = xcalloc(n, sizeof(int32_t));
	m.left = xcalloc(n, sizeof(int32_t));
	m.right = xcalloc(n, sizeof(int32_t));
	m.hash = xcalloc(n, sizeof(int32_t));
	m.red = xcalloc(n, 1);
	if (!m.next || !m.prev || !m.parent || !m.left || !m.right || !m.hash || !m.red) {
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory ordering %zu classes", n);
		goto out;
	}
	if ((rc = jhm_bins(&m, 16, e)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		m.hash[i] = (int32_t)(keys[i] ^ (keys[i] >> 16));
		if ((rc = jhm_put(&m, (int32_t)i, e)))
			goto out;
		/* ++size > threshold (0.75 of the bins) */
		if (i + 1 > m.n / 4 * 3 && (rc = jhm_resize(&m, e)))
			goto out;
	}
	for (size_t b = 0; b < m.n; b++)
		for (int32_t x = m.tab[b]; x != NIL; x = m.next[x])
			order[k++] = (size_t)x;
out:
	xfree(m.tab);
	xfree(m.tree);
	xfree(m.next);
	xfree(m.prev);
	xfree(m.parent);
	xfree(m.left);
	xfree(m.right);
	xfree(m.hash);
	xfree(m.red);
	return rc;
}
