import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../../server/check/answer-cache';

describe('AnswerCache', () => {
  it('computes an answer once per key and version', () => {
    const cache = new AnswerCache();
    let computed = 0;
    const compute = () => Buffer.from(`answer ${++computed}`);
    expect(String(cache.get(1, '4000', compute))).toBe('answer 1');
    expect(String(cache.get(1, '4000', compute))).toBe('answer 1');
    expect(String(cache.get(1, '2480', compute))).toBe('answer 2');
    expect(computed).toBe(2);
  });

  it('forgets everything when the declarations change', () => {
    const cache = new AnswerCache();
    cache.get(1, '4000', () => Buffer.from('old'));
    expect(String(cache.get(2, '4000', () => Buffer.from('new')))).toBe('new');
    expect(cache.size).toBe(1);
  });

  it('stays within its size budget, dropping the least recently used answer first', () => {
    const cache = new AnswerCache(30);
    cache.get(1, 'a', () => Buffer.from('x'.repeat(10)));
    cache.get(1, 'b', () => Buffer.from('y'.repeat(10)));
    cache.get(1, 'a', () => Buffer.from('unused')); // a is now the most recently used
    cache.get(1, 'c', () => Buffer.from('z'.repeat(15)));
    expect(cache.size).toBe(2);
    expect(String(cache.get(1, 'a', () => Buffer.from('recomputed')))).toBe('x'.repeat(10));
    expect(String(cache.get(1, 'b', () => Buffer.from('recomputed')))).toBe('recomputed');
  });
});
