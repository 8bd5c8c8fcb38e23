import type { Shape } from '../shape'
import type { queryLanguageMessages as en } from '../en/queryLanguage'

/** Arama dilinin hesabın verisinden kurulan yardımı, değer denetimi ve yardım düğmesi. */
export const queryLanguageMessages: Shape<typeof en> = {
  queryLang: {
    words: 'Kelimeler başlarından eşleşir',
    phrase: 'Bu kelimeler bu sırayla, tam olarak',
    or: 'Kelimelerden biri (veya, VEYA, or, OR, {bar})',
    not: 'İkinci kelime olmadan (-, değil, DEĞİL, not, NOT)',
    group: 'Terimleri gruplar; “ve”, “and” ya da boşluk birleştirir',
    field: 'Yalnızca başlıkta (özet için summary:)',
    equalsOf: '{name} alanının bir değeri, adıyla ya da anahtarıyla; büyük küçük harf ve aksanlar fark etmez. Değerler: {values}',
    compareOf: '{name} en az bu kadar (ayrıca >, <, <=); burada {min} ile {max} arası',
    rangeOf: '{name} bir aralıkta, uçlar dahil',
    callId: 'Tam yapıştırılan bir çağrı kimliği (ya da id:…) o çağrıyı bulur',
    operatorWord: 'Bir işleç kelimesinin kendisini (ve, veya, değil, or, not) aramak için tırnak içine alın: “ve”.',
    keysTitle: 'Bu hesaptaki alanlar',
    keyCalls: '{count} çağrı',
    loading: 'Örnekler çağrılarınızdan okunuyor…',
    noData: 'Kendi verinizden örnekler görmek için önce çağrı eşitleyin.',
    valueWarning: '{field} için “{value}” diye bir değer yok; değerler: {values}.',
    helpButton: 'Arama yardımı (?)',
    callFound: '{id} çağrısı bulundu.'
  }
}
