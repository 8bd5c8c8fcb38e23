import type { Shape } from '../shape'
import type { insightMessages as en } from '../en/insight'

/** Turkish messages for the Insight screen (the same keys as en/insight.ts). */
export const insightMessages: Shape<typeof en> = {
  insight: {
    title: 'Analiz',
    perDay: 'Günlük çağrı sayısı',
    distribution: 'Bir parametrenin dağılımı',
    chooseKey: 'Bir parametre seçin',
    noData: 'Bu filtreler için veri yok.',
    perType: 'Türe göre çağrılar',
    total: 'Geçerli sonuç kümesinde {count} çağrı',
    count: 'Çağrı',
    localOnly: 'Analiz yerel önbellekten hesaplanır.',
    activeFilters: 'Etkin filtreler',
    noFilters: 'Filtre yok: önbellekteki tüm çağrılar',
    removeChip: '{name} filtresini kaldır',
    chipText: 'Metin',
    chipDates: 'Tarihler',
    chipType: 'Çağrı türü',
    chipDirection: 'Yön',
    chipAnalysis: '{name}',
    drillHint: 'O çağrıları aramak için bir güne veya bir çubuğa tıklayın.',
    savePng: 'Grafiği PNG olarak kaydet',
    saveCsv: 'Grafiğin verisini CSV olarak kaydet',
    compare: 'Başka bir dönemle karşılaştır',
    compareTotal: 'Karşılaştırma döneminde {count} çağrı',
    dayN: '{n}. gün',
    day: 'Gün',
    dayNumber: 'Gün sırası',
    breakdown: 'Bir sütuna göre dağılım',
    chooseColumn: 'Bir sütun seçin',
    trend: 'Zaman içinde bir parametre',
    chooseValue: 'Bir değer seçin',
    perDayBucket: 'Günlük',
    perWeekBucket: 'Haftalık',
    period: 'Dönem',
    callsWithValue: 'Değeri olan çağrılar',
    mean: '{name} ortalaması',
    share: '{value} payı',
    missing: 'Değeri olmayan {count} çağrı',
    dataTable: 'Veri tablosu',
    searchThese: 'Bu çağrıları ara'
  }
}
