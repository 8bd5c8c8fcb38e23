import type { Shape } from '../shape'
import type { exportMessages as en } from '../en/export'

/** Turkish messages for the export dialog (the same keys as en/export.ts). */
export const exportMessages: Shape<typeof en> = {
  exportDialect: {
    label: 'CSV ayırıcısı',
    comma: 'Virgül, ondalık nokta',
    semicolon: 'Noktalı virgül, ondalık virgül',
    help: 'Türkçe Excel ve LibreOffice ";" ve ondalık virgüllü dosyayı doğrudan açar; İngilizce olanlar "," ve nokta bekler.',
    sidecar: 'Sorguyu ve kapsamını da kaydet (.meta.json)'
  },
  export: {
    title: 'Çağrıları dışa aktar',
    what: 'Neler aktarılsın',
    selected: 'Seçili çağrılar ({count})',
    allResults: 'Sorgunun tüm sonuçları ({count})',
    format: 'Biçim',
    columns: 'Sütunlar',
    col_callId: 'Çağrı No',
    col_callDate: 'Tarih',
    col_title: 'Başlık',
    col_summary: 'Özet',
    col_analysis: 'Analiz parametreleri',
    col_review: 'İnceleme (durum, etiketler, not, puan)',
    col_extra: 'Diğer alanlar (temsilci, süre, dil…)',
    extraFields: 'Yazılacak diğer alanlar:',
    layout: 'Analiz düzeni',
    wide: 'Geniş: her parametre bir sütun',
    long: 'Uzun: her parametre bir satır',
    start: 'Dışa aktar…',
    writing: '{total} kaydın {written} tanesi yazıldı',
    cancel: 'Dışa aktarmayı iptal et',
    done: 'Dışa aktarma tamamlandı',
    doneDetail: '{count} çağrı {file} dosyasına yazıldı',
    downloadedDetail: '{count} çağrı {file} dosyasında; tarayıcınız indirilenlere kaydetti',
    failed: 'Dışa aktarma başarısız',
    cancelled: 'Dışa aktarma iptal edildi; yarım dosya bırakılmadı.',
    cancelledStreamed: 'Dışa aktarma iptal edildi. Tarayıcınız indirmeyi başarısız gösteriyor: o dosya eksiktir.',
    failedStreamed: 'Tarayıcınız bu indirmeyi başarısız gösteriyor: o dosya eksiktir. Yeniden dışa aktarın.',
    streaming: 'Tarayıcınız dosyayı yazıldıkça indiriyor; çubuk dolduğunda dosya tamamdır.',
    nothing: 'Önce çağrı seçin veya tüm sonuçları aktarın.',
    zoneNote: 'Tarihler {zone} diliminde yazılır.',
    englishHeaders: 'İngilizce başlıklar',
    englishHeadersHelp: 'Sütun başlıklarını ve bilgi sayfasını, onları adıyla okuyan araçlar için İngilizce yaz.',
    openFile: 'Dosyayı aç',
    showInFolder: 'Klasörde göster'
  }
}
