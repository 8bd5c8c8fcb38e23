import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { FOLD_FOR_INDEX_SOURCE, foldForIndex } from '../../../../src/core/cache/fold'
import { foldText } from '../../../../src/shared/text/fold'

describe('foldForIndex', () => {
  it('folds exactly like the shared foldText', () => {
    const samples = [
      'İSTANBUL',
      'ışık IŞIK',
      'Şikâyet ÇAĞRI öğün ÜÇ',
      'plain ASCII Text',
      'Straße Øre Łódź Æon',
      'e\u0301',
      '😀 İ 😀',
      'ǅemal',
      'ΣΊΣΥΦΟΣ',
      '',
      'ｆｕｌｌ',
      'a',
      'Z',
      'end İ',
      'İ start',
      'lone \ud83d high',
      'high at end \ud83d',
      'lone \ude00 low',
      '\ud83dA then a letter',
      '𝐀𝐁 math bold',
      'x\u0000y',
      // Latin-1 letters that fold into Latin-1 and one that folds out of it (µ to μ), in one text.
      'µ×÷ðþÿ¡¿ªº ÀÉÎÕÜ àéîõü Ÿ',
      'ASCII only, upper: ÇAĞRI',
      'already folded plain text'
    ]
    // And a random mix of the above, so runs and folds meet in every order.
    let seed = 7
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const pool = [...samples.join('')]
    for (let k = 0; k < 200; k++)
      samples.push(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => pool[Math.floor(rnd() * pool.length)]!).join(''))
    for (const s of samples) expect(foldForIndex(s)).toBe(foldText(s))
    // The index build's worker folds with this source text alone, in a context of its own:
    // a free variable would throw there, a drift would fold differently.
    const isolated = runInNewContext(FOLD_FOR_INDEX_SOURCE) as (text: string) => string
    for (const s of samples) expect(isolated(s)).toBe(foldText(s))
  })
})
