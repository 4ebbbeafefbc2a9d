import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../../server/check/answer-cache';

describe('AnswerCache', () => {
  it('computes an answer once per key and version', () => {
    const cache = new AnswerCache();
    let computed = 0;
    const compute = () => `answer ${++computed}`;
    expect(cache.get(1, '4000', compute)).toBe('answer 1');
    expect(cache.get(1, '4000', compute)).toBe('answer 1');
    expect(cache.get(1, '2480', compute)).toBe('answer 2');
    expect(computed).toBe(2);
  });

  it('forgets everything when the declarations change', () => {
    const cache = new AnswerCache();
    cache.get(1, '4000', () => 'old');
    expect(cache.get(2, '4000', () => 'new')).toBe('new');
    expect(cache.size).toBe(1);
  });

  it('stays within its size budget, dropping the least recently used answer first', () => {
    const cache = new AnswerCache(30);
    cache.get(1, 'a', () => 'x'.repeat(10));
    cache.get(1, 'b', () => 'y'.repeat(10));
    cache.get(1, 'a', () => 'unused'); // a is now the most recently used
    cache.get(1, 'c', () => 'z'.repeat(15));
    expect(cache.size).toBe(2);
    expect(cache.get(1, 'a', () => 'recomputed')).toBe('x'.repeat(10));
    expect(cache.get(1, 'b', () => 'recomputed')).toBe('recomputed');
  });
});
