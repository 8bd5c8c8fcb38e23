import type { Shape } from '../shape'
import type { reviewModeMessages as en } from '../en/reviewMode'

/** İnceleme kipinin çağrı başlığı, ölçütler arası sesli geçişleri ve başarısız kritik ölçüt. */
export const reviewModeMessages: Shape<typeof en> = {
  reviewMode: {
    callFields: 'Çağrı bilgileri',
    moved: '{criterion}: {value} kaydedildi. Sıradaki: {next}.',
    done: '{criterion}: {value} kaydedildi. Tüm ölçütler yanıtlandı.',
    rejected: '{value}, {criterion} için bir yanıt değil ({min}–{max}); hiçbir şey değişmedi.',
    failed: 'Başarısız: kritik bir ölçüt karşılanmadı',
    failedShort: 'başarısız'
  },
  listCalls: {
    toggle: 'Listedeki çağrılar (L)',
    title: '“{name}” listesindeki çağrılar',
    selectAll: 'Tümünü seç',
    ticked: '{count} seçili',
    removeSelected: 'Seçilenleri çıkar (Del)',
    close: 'Kapat (Esc)',
    tick: 'Seç: {title}',
    range: '{from}–{to} / {size}',
    prevPage: 'Önceki sayfa',
    nextPage: 'Sonraki sayfa',
    noTitle: 'Önbellekte yok',
    keysHint: '↑ ↓ taşı · Boşluk seç (Shift: aralık) · Enter aç · Del seçilenleri çıkar · Esc kapat'
  }
}
